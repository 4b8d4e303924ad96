// A FakeBridge with sample data and a scripted agent, used when the UI is
// opened in a plain browser (vite dev, screenshots, browser tests) instead
// of the Loupe window. Pick a scenario with ?demo=offline or ?demo=empty.
import type { ModelInfo } from '../types';
import { FakeBridge, makeSummary, unconfinedProtections } from './fake';
import { argOf, FakeLoop } from './fakeloop';
import { EventLog } from './fixtures';

export type DemoScenario = 'sample' | 'empty' | 'offline' | 'long' | 'unsandboxed';

const models: ModelInfo[] = [
  {
    name: 'qwen3:0.6b',
    size: 522_653_767,
    family: 'qwen3',
    parameter_size: '751.63M',
    quantization: 'Q4_K_M',
    capabilities: ['completion', 'tools', 'thinking'],
    context_length: 40960,
    modified_at: '2026-01-02T09:00:00Z',
  },
  {
    name: 'llama3.2:1b',
    size: 1_321_098_329,
    family: 'llama',
    parameter_size: '1.2B',
    quantization: 'Q8_0',
    capabilities: ['completion', 'tools'],
    context_length: 131072,
    modified_at: '2026-01-01T09:00:00Z',
  },
  {
    name: 'gemma3:1b',
    size: 815_319_791,
    family: 'gemma3',
    parameter_size: '999.89M',
    quantization: 'Q4_K_M',
    capabilities: ['completion'],
    context_length: 32768,
    modified_at: '2025-12-20T09:00:00Z',
  },
];

function sampleLog(): EventLog {
  const log = new EventLog('demo-1', Date.parse('2026-01-05T10:00:00Z'));
  log.user('What does this project do? Look at the README and the main package.');
  log.request();
  log.response({
    content: 'I will list the workspace first.',
    thinking: 'The user wants an overview. Listing the top folder tells me where the README and main package are.',
    tool_calls: [{ id: 'call_1', index: 0, name: 'list_dir', args: { path: '.' } }],
    done_reason: 'stop',
    raw: { model: 'qwen3:0.6b', message: { role: 'assistant', content: 'I will list the workspace first.' }, done: true, done_reason: 'stop' },
  });
  log.toolCall({ call_id: 'call_1', name: 'list_dir', args: { path: '.' }, read_only: true });
  log.permission('call_1', 'list_dir', 'allow', 'rule: read-only tools run without asking');
  log.result({ call_id: 'call_1', name: 'list_dir', content: 'README.md\ngo.mod\nmain.go\ninternal/\n', duration_ms: 3 });
  log.request();
  log.response({
    content: '',
    tool_calls: [
      { id: 'call_2', index: 0, name: 'read_file', args: { path: 'README.md' } },
      { id: 'call_3', index: 1, name: 'read_file', args: { path: 'main.go', limit: 40 } },
    ],
  });
  log.toolCall({ call_id: 'call_2', name: 'read_file', args: { path: 'README.md' }, read_only: true });
  log.toolCall({ call_id: 'call_3', name: 'read_file', args: { path: 'main.go', limit: 40 }, read_only: true });
  log.permission('call_2', 'read_file', 'allow', 'rule: read-only tools run without asking');
  log.permission('call_3', 'read_file', 'allow', 'rule: read-only tools run without asking');
  log.result({
    call_id: 'call_2',
    name: 'read_file',
    content: '# tally\n\nA tiny command-line tool that counts words, lines and bytes in files.\n\nUsage: tally [-w] [-l] FILE...\n',
    duration_ms: 2,
  });
  log.result({
    call_id: 'call_3',
    name: 'read_file',
    content: 'package main\n\nimport (\n\t"flag"\n\t"fmt"\n\t"os"\n)\n\nfunc main() {\n\twords := flag.Bool("w", false, "count words")\n\tlines := flag.Bool("l", false, "count lines")\n\tflag.Parse()\n\tfor _, f := range flag.Args() {\n\t\tcount(f, *words, *lines)\n\t}\n}\n',
    truncated: true,
    bytes: 9812,
    duration_ms: 2,
  });
  log.request();
  const answer =
    '**tally** is a small command-line tool that counts words, lines and bytes.\n\n' +
    '- `main.go` parses the `-w` and `-l` flags and calls `count` for every file.\n' +
    '- The README documents the usage: `tally [-w] [-l] FILE...`\n\n' +
    'I only read the first 40 lines of `main.go`, so the counting itself is not covered here.';
  log.response({ content: answer, metrics: { prompt_eval_count: 1630, eval_count: 88, total_duration: 3_900_000_000, load_duration: 20_000_000, prompt_eval_duration: 1_200_000_000, eval_duration: 2_500_000_000, time_to_first_token: 1_300_000_000 } });
  log.end('answered', answer);

  log.user('Run the tests.');
  log.request();
  log.response({
    content: '',
    tool_calls: [{ id: 'call_4', index: 0, name: 'run_command', args: { command: 'go test ./...' } }],
  });
  log.toolCall({ call_id: 'call_4', name: 'run_command', args: { command: 'go test ./...' } });
  // A breakpoint on run_command paused here, and the user narrowed the command.
  log.checkpoint({ point: 'before_tool', state: 'paused', call_id: 'call_4', tool: 'run_command', breakpoint: true });
  log.edit({ target: 'args', call_id: 'call_4', before: { command: 'go test ./...' }, after: { command: 'go test -run TestCount ./...' } });
  log.checkpoint({ point: 'before_tool', state: 'resumed', call_id: 'call_4', tool: 'run_command', action: 'continue' });
  log.permission('call_4', 'run_command', 'allow', 'you', ['no rule allows go test -run TestCount ./...']);
  log.result({
    call_id: 'call_4',
    name: 'run_command',
    content: '--- FAIL: TestCount (0.00s)\n    count_test.go:14: got 3 words, want 4\nFAIL\nexit status 1',
    is_error: true,
    error_kind: 'failed',
    exit_code: 1,
    duration_ms: 1840,
    display: { command: 'go test -run TestCount ./...', path: '/home/me/tally' },
  });
  log.request();
  log.response({
    content: 'TestCount fails: it counts 3 words where 4 are expected. Should I',
    done_reason: 'length',
    incomplete: true,
  });
  log.notice('truncated', 'The model hit num_ctx=8192 while answering; its message was cut off.');
  log.end('truncated', '', 'Raise the context cap in Settings or start a new session.');

  // A file change: approved from the card, shown as a diff, and undoable.
  log.user('Fix the word count.');
  log.request();
  const fixArgs = { path: 'count.go', old_string: 'strings.Split(line, " ")', new_string: 'strings.Fields(line)' };
  log.response({
    content: 'Splitting on single spaces miscounts runs of spaces; strings.Fields handles them.',
    tool_calls: [{ id: 'call_5', index: 0, name: 'edit_file', args: fixArgs }],
  });
  log.toolCall({ call_id: 'call_5', name: 'edit_file', args: fixArgs });
  log.permission('call_5', 'edit_file', 'allow', 'you (for this session)', ['it changes count.go']);
  const before = 'package main\n\nimport "strings"\n\nfunc words(line string) int {\n\treturn len(strings.Split(line, " "))\n}\n';
  log.result({
    call_id: 'call_5',
    name: 'edit_file',
    content: 'edited count.go: replaced 1 occurrence at line 6',
    duration_ms: 4,
    display: {
      path: 'count.go',
      diff: '--- a/count.go\n+++ b/count.go\n@@ -5,3 +5,3 @@\n func words(line string) int {\n-\treturn len(strings.Split(line, " "))\n+\treturn len(strings.Fields(line))\n }\n',
    },
    changes: [{ path: 'count.go', before, after: before.replace('strings.Split(line, " ")', 'strings.Fields(line)') }],
  });
  log.request();
  log.response({ content: 'Fixed: `words` now uses `strings.Fields`.' });
  log.end('answered', 'Fixed: `words` now uses `strings.Fields`.');
  return log;
}

/**
 * The scripted agent of the demo: it lists the workspace, runs the tests
 * (which asks for approval) and answers. It honours Step mode,
 * breakpoints and edits like the real loop.
 */
function scriptRuns(fake: FakeBridge): FakeLoop {
  return new FakeLoop(fake, {
    delayMs: 500,
    streamMs: 45,
    reply: ({ round, results }) => {
      if (round === 1) {
        return {
          content: 'I will look at the workspace first.',
          thinking: 'The user wants the tests run. Listing the folder shows me what kind of project this is. ',
          calls: [{ name: 'list_dir', args: { path: '.' }, readOnly: true, result: (a) => (argOf(a, 'path') === '.' ? 'README.md\ngo.mod\nmain.go\ncount_test.go\n' : `no such folder: ${argOf(a, 'path')}`) }],
        };
      }
      if (round === 2) {
        return {
          content: 'It is a Go module. I will run the test suite.',
          calls: [
            {
              name: 'run_command',
              args: { command: 'go test ./...', timeout_ms: 60000 },
              ask: true,
              reasons: fake.protectionsInfo.Writes.Active
                ? ['no rule allows go test ./...']
                : ['no rule allows go test ./...', 'commands are not sandboxed here: writes: Landlock is not available'],
              onceOnly: !fake.protectionsInfo.Writes.Active,
              result: (a) => (argOf(a, 'command').startsWith('go test') ? 'ok  \ttally\t0.012s' : `$ ${argOf(a, 'command')}\n(done)`),
              exitCode: 0,
              display: { command: 'go test ./...', path: '/home/me/tally' },
            },
          ],
        };
      }
      const last = results[0];
      if (round === 3 && last && !last.is_error && last.error_kind !== 'skipped') {
        const old = '# tally\n\nA tiny command-line tool that counts words, lines and bytes in files.\n';
        const args = { path: 'README.md', old_string: 'counts words, lines and bytes', new_string: 'counts words, lines and bytes (tests pass)' };
        return {
          content: `The tests ran (${last.content.split('\n')[0]}). I will note that in the README.`,
          calls: [
            {
              name: 'edit_file',
              args,
              ask: true,
              reasons: ['it changes README.md'],
              result: 'edited README.md: replaced 1 occurrence at line 3',
              display: {
                path: 'README.md',
                diff: '--- a/README.md\n+++ b/README.md\n@@ -1,3 +1,3 @@\n # tally\n \n-A tiny command-line tool that counts words, lines and bytes in files.\n+A tiny command-line tool that counts words, lines and bytes (tests pass) in files.\n',
              },
              changes: [{ path: 'README.md', before: old, after: old.replace(args.old_string, args.new_string) }],
            },
          ],
        };
      }
      const content = !last
        ? 'Done.'
        : last.name === 'edit_file'
          ? last.error_kind === 'denied'
            ? 'The tests pass. You denied the README change, so I left it as it is.'
            : 'The tests pass, and the README says so now. "Undo this turn" puts the README back.'
          : last.error_kind === 'denied'
            ? 'You denied running the tests, so I did not run them.'
            : last.error_kind === 'skipped'
              ? `You skipped the tests and told me: "${last.content}"`
              : `The tests ran: ${last.content.split('\n')[0]}`;
      return { content };
    },
  });
}

/** A session with `runs` runs of three rounds each, to see that long timelines stay fast. */
export function longLog(runs: number): EventLog {
  const log = new EventLog('demo-long', Date.parse('2026-01-05T08:00:00Z'), 200);
  for (let r = 0; r < runs; r++) {
    log.user(`Task ${r + 1}: find and fix the problem in module ${r + 1}.`);
    for (let round = 0; round < 2; round++) {
      log.request();
      const id = `call_${r}_${round}`;
      log.response({ content: `Looking at module ${r + 1}.`, tool_calls: [{ id, index: 0, name: 'read_file', args: { path: `mod${r}/file${round}.go` } }] });
      log.toolCall({ call_id: id, name: 'read_file', args: { path: `mod${r}/file${round}.go` }, read_only: true });
      log.permission(id, 'read_file', 'allow', 'rule: read-only tools run without asking');
      log.result({ call_id: id, name: 'read_file', content: `package mod${r}\n\nfunc F${round}() int { return ${round} }\n` });
    }
    log.request();
    log.response({ content: `Module ${r + 1} is fine.` });
    log.end('answered', `Module ${r + 1} is **fine**.`);
  }
  return log;
}

export function createDemoBridge(scenario: DemoScenario = 'sample'): FakeBridge {
  const fake = createDemo(scenario);
  // The sample workspace proposes settings of its own, not trusted yet.
  fake.setWorkspaceFile('/home/me/tally', {
    rules: [{ effect: 'deny', path: 'testdata/golden/**' }],
    commands: ['go test ./...', 'go vet ./...'],
    allow_network: false,
  });
  return fake;
}

function createDemo(scenario: DemoScenario): FakeBridge {
  if (scenario === 'long') {
    const log = longLog(150);
    return new FakeBridge({
      models,
      sessions: [makeSummary({ id: 'demo-long', title: 'A long session (150 runs)', last_reason: 'answered', event_count: log.seq })],
      events: log.events,
    });
  }
  if (scenario === 'offline') {
    return new FakeBridge({
      status: {
        reachable: false,
        version: '',
        message: 'Loupe could not reach Ollama at http://127.0.0.1:11434. Start it with "ollama serve", or set OLLAMA_HOST to where it runs.',
      },
      models,
    });
  }
  if (scenario === 'empty') return new FakeBridge({ models });

  const log = sampleLog();
  const fake = new FakeBridge({
    models,
    ...(scenario === 'unsandboxed' ? { protections: unconfinedProtections() } : {}),
    sessions: [
      makeSummary({
        id: 'demo-1',
        title: 'What does this project do?',
        workspace: '/home/me/tally',
        model: 'qwen3:0.6b',
        last_reason: 'truncated',
        event_count: log.seq,
        breakpoints: { points: [], tools: ['run_command'] },
        updated_at: '2026-01-05T10:02:00Z',
      }),
      makeSummary({
        id: 'demo-2',
        title: 'Rename the config loader',
        workspace: '/home/me/webshop',
        model: 'llama3.2:1b',
        last_reason: 'round_cap',
        updated_at: '2026-01-04T16:30:00Z',
      }),
    ],
    events: log.events,
  });
  fake.workspaceToPick = '/home/me/new-project';
  scriptRuns(fake);
  return fake;
}
