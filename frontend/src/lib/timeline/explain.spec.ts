import { describe, expect, it } from 'vitest';
import { EventLog } from '../testing/events';
import {
  explainCall,
  explainCheckpoint,
  explainEdit,
  explainEnd,
  explainNotice,
  explainObservation,
  explainPermissionReasons,
  explainRequest,
  explainResponse,
  explainRestore,
} from './explain';
import { buildTimeline } from './group';

function call(steps: (log: EventLog) => void, name = 'read_file', args: object = { path: 'README.md' }) {
  const log = new EventLog();
  log.user('x');
  log.request();
  log.response({ tool_calls: [{ id: 'c1', index: 0, name, args: args as never }] });
  steps(log);
  return buildTimeline(log.events).calls.get('c1')!;
}

describe('explain', () => {
  it('says the model cannot read files itself, and who allowed the call', () => {
    const c = call((l) => {
      l.toolCall({ call_id: 'c1', name: 'read_file', args: { path: 'README.md' } });
      l.permission('c1', 'read_file', 'allow', 'rule: read-only');
      l.result({ call_id: 'c1', name: 'read_file', content: 'A' });
    });
    expect(explainCall(c)).toBe(
      'The model cannot read files itself: Loupe read README.md and sends the text back to it. It was allowed by rule: read-only.',
    );
  });

  it('names the edited arguments a call ran with', () => {
    const c = call((l) => {
      l.toolCall({ call_id: 'c1', name: 'read_file', args: { path: 'README.md' } });
      l.edit({ target: 'args', call_id: 'c1', before: { path: 'README.md' }, after: { path: 'main.go' } });
      l.result({ call_id: 'c1', name: 'read_file', content: 'package main' });
    });
    expect(explainCall(c)).toContain('Loupe read main.go');
    expect(explainCall(c)).toContain('You changed its arguments');
  });

  it('speaks of what will happen to a call that has not run, in the state its card shows', () => {
    const asked = call((l) => l.toolCall({ call_id: 'c1', name: 'run_command', args: { command: 'make' } }), 'run_command', { command: 'make' });
    const waiting = explainCall(asked, { status: 'awaiting_approval', label: 'Waiting for your approval' });
    expect(waiting).not.toContain('Loupe ran');
    expect(waiting).toContain('If you approve, Loupe will run it');
    const edit = call((l) => l.toolCall({ call_id: 'c1', name: 'edit_file', args: { path: 'calc.py' } }), 'edit_file', { path: 'calc.py' });
    const paused = explainCall(edit, { status: 'paused', label: 'Paused before it runs' });
    expect(paused).not.toContain('Loupe changed');
    expect(paused).toContain('When it runs, Loupe will change calc.py');
    const notYet = explainCall(call(() => {}), { status: 'queued', label: 'Not checked yet' });
    expect(notYet).toContain('nothing of it has been checked or run yet');
    const running = call((l) => {
      l.toolCall({ call_id: 'c1', name: 'read_file', args: { path: 'a' } });
      l.permission('c1', 'read_file', 'allow', 'rule: read-only');
    });
    expect(explainCall(running, { status: 'running', label: 'Running' })).toContain('Loupe is running it now');
    expect(explainCheckpoint({ point: 'before_request', state: 'paused' }, true)).toContain('before the request is sent');
    expect(explainCheckpoint({ point: 'before_request', state: 'paused' }, false, 'step')).toContain('You pressed Step');
  });

  it('says why a call was refused, invalid or skipped', () => {
    expect(explainCall(call((l) => l.toolCall({ call_id: 'c1', name: 'nope', valid: false, error_kind: 'unknown_tool' }), 'nope'))).toContain(
      'There is no tool called "nope"',
    );
    expect(explainCall(call((l) => l.toolCall({ call_id: 'c1', name: 'read_file', valid: false, error_kind: 'invalid_args' })))).toContain(
      'do not fit the tool\u2019s schema',
    );
    const denied = call((l) => {
      l.toolCall({ call_id: 'c1', name: 'run_command' });
      l.permission('c1', 'run_command', 'deny', 'you');
    }, 'run_command');
    expect(explainCall(denied)).toBe('The call was refused by you, so it did not run. The model is told it was denied and has to do without.');
    const skipped = call((l) => {
      l.toolCall({ call_id: 'c1', name: 'read_file' });
      l.result({ call_id: 'c1', name: 'read_file', content: 'mine', error_kind: 'skipped' });
    });
    expect(explainCall(skipped)).toContain('You skipped this call');
  });

  it('explains what a request sends, num_ctx, and that it is sent again each round', () => {
    const log = new EventLog();
    log.user('x');
    const first = log.request({ history_seqs: [1], message_count: 2 }).payload;
    expect(explainRequest(first, 1)).toBe(
      'Loupe sent the model the system prompt, 1 message of history and the schemas of 2 tools; the model remembers nothing between requests. num_ctx 8,192 is its context window: the most tokens it can read at once, prompt and answer together.',
    );
    expect(explainRequest(first, 2)).toContain('sent the model everything again');
  });

  it('explains answers, observations, pauses, edits, notices and ends', () => {
    const log = new EventLog();
    expect(explainResponse(log.response({ content: 'hi' }).payload)).toContain('final answer');
    const printed = log.response({ content: '[TOOL_CALLS]shell[ARGS]{}', unrecovered: { form: '[TOOL_CALLS] (Mistral)', why: 'it calls "shell"', text: '[TOOL_CALLS]shell[ARGS]{}' } });
    expect(explainResponse(printed.payload)).toContain('[TOOL_CALLS] (Mistral)');
    expect(explainResponse(printed.payload)).toContain('not a final answer');
    expect(explainResponse(log.response({ done_reason: 'length', incomplete: true, tool_calls: [{ id: 'a', index: 0, name: 'x', args: {} }] }).payload)).toContain(
      'never runs tool calls from a message that was cut off',
    );
    const r = log.result({ call_id: 'c', name: 'read_file', content: 'x', truncated: true }).payload;
    expect(explainObservation(r, true)).toContain('the model never saw the rest');
    expect(explainObservation(r, true)).toContain('the model sees your version');
    expect(explainCheckpoint({ point: 'before_tool', state: 'paused', breakpoint: true })).toMatch(/^A breakpoint paused the loop before the call ran/);
    expect(explainEdit({ target: 'args', before: {}, after: {} })).toContain('checked against the tool\u2019s schema again');
    expect(explainEdit({ target: 'tools', before: ['grep', 'read_file', 'run_command'], after: ['read_file'] })).toBe(
      'You switched off grep and run_command while the run was paused. For the rest of the run the model gets only the schemas of read_file, and a call of another tool is refused as an unknown tool; the log keeps both lists.',
    );
    expect(explainEdit({ target: 'tools', before: ['read_file'], after: [] })).toContain('no tool schemas (it can only answer in text)');
    expect(explainNotice('loop_detected')).toContain('same call');
    expect(explainNotice('something_new')).toContain('harness made by itself');
    expect(explainEnd('round_cap')).toContain('limit');
  });

  it('explains the safety cards: reasons, remembered answers, undo and restores', () => {
    expect(explainPermissionReasons(['it writes to a file (> a.txt)', 'no rule allows echo'])).toBe(
      "Loupe's rules decided this, not the model: it writes to a file (> a.txt); no rule allows echo.",
    );
    expect(explainPermissionReasons(null)).toBe('');
    const edited = call(
      (l) => {
        l.toolCall({ call_id: 'c1', name: 'edit_file' });
        l.permission('c1', 'edit_file', 'allow', 'you (for this session)');
        l.result({ call_id: 'c1', name: 'edit_file', changes: [{ path: 'a.md', before: 'a', after: 'b' }] });
      },
      'edit_file',
      { path: 'a.md' },
    );
    expect(explainCall(edited)).toContain('remembered an earlier answer');
    expect(explainCall(edited)).toContain('"Undo this turn" can put it back');
    expect(explainRestore({ to_seq: 4, run: 2, restored: ['a.md'], overwritten: ['a.md'] })).toMatch(/^You asked Loupe to put 1 file back as it was before run 2\./);
    expect(explainRestore({ to_seq: 4, restored: ['a', 'b'] })).toContain('2 files back as they were before event 4');
    expect(explainRestore({ to_seq: 4, restored: ['a'], overwritten: ['a'] })).toContain('you chose to overwrite them');
    expect(explainNotice('not_sandboxed')).toContain('asks you before every command');
    expect(explainNotice('workspace_untrusted')).toContain('trust it');
  });
});
