// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, within } from '@testing-library/svelte';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { EventLog } from '../testing/events';
import { applyOutput, buildTimeline, callStatus, outputKey, type CallItem, type CallOutput } from '../timeline';
import type { Approval, Scope } from '../types';
import ToolCallCard from './ToolCallCard.svelte';

afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

function item(steps: (log: EventLog) => void): CallItem {
  const log = new EventLog();
  log.user('x');
  log.request();
  log.response({ tool_calls: [{ id: 'c1', index: 0, name: 'run_command', args: { command: 'go test ./...' } }] });
  steps(log);
  return buildTimeline(log.events).calls.get('c1')!;
}

function show(c: CallItem, opts: { approval?: Approval; runEnded?: boolean; onanswer?: (allow: boolean, scope: Scope) => void } = {}) {
  return render(ToolCallCard, {
    props: {
      id: c.key,
      item: c,
      state: callStatus(c, { approvalPending: opts.approval != null, runEnded: opts.runEnded ?? false }),
      approval: opts.approval,
      onanswer: opts.onanswer ?? (() => {}),
    },
  });
}

describe('ToolCallCard', () => {
  it('marks a call recovered from text, with the text it came from', async () => {
    const text = '<tool_call>{"name": "run_command", "arguments": {"command": "go test ./...",}}</tool_call>';
    show(
      item((l) => {
        l.toolCall({
          call_id: 'c1',
          name: 'run_command',
          args: { command: 'go test ./...' },
          rescue: { call_id: 'c1', recovered: true, form: 'tool_call tag', text, repaired: 'a trailing comma', original: text },
        });
        l.permission('c1', 'run_command', 'allow', 'you');
      }),
    );
    expect(screen.getByTestId('recovered-call').textContent).toContain('recovered from text');
    expect(screen.getByTestId('recovered-call').getAttribute('title')).toContain('tool_call tag');
    expect(screen.getByTestId('repaired-args').textContent).toContain('arguments repaired');
    const original = screen.getByTestId('rescue-original');
    expect(original.textContent).toBe(text);
    const box = original.closest('details')!;
    expect(box.open).toBe(false);
    await fireEvent.click(within(box).getByText('The text it was recovered from'));
    expect(box.open).toBe(true);
    expect(screen.getByTestId('repair-note').textContent).toContain('Repaired: a trailing comma.');
  });

  it('marks repaired arguments, with what the model wrote', () => {
    show(
      item((l) =>
        l.toolCall({
          call_id: 'c1',
          name: 'run_command',
          args: { command: 'ls' },
          rescue: { call_id: 'c1', repaired: 'the arguments were a JSON string holding the object', original: '"{\\"command\\": \\"ls\\"}"' },
        }),
      ),
    );
    expect(screen.queryByTestId('recovered-call')).toBeNull();
    expect(screen.getByTestId('repaired-args').getAttribute('title')).toContain('a JSON string holding the object');
    expect(screen.getByText('The arguments as the model wrote them')).toBeTruthy();
    expect(screen.getByTestId('rescue-original').textContent).toContain('command');
  });

  it('marks nothing on a call the model asked for as it should', () => {
    show(item((l) => l.toolCall({ call_id: 'c1', name: 'run_command', args: { command: 'ls' } })));
    expect(screen.queryByTestId('recovered-call')).toBeNull();
    expect(screen.queryByTestId('repaired-args')).toBeNull();
    expect(screen.queryByTestId('rescue-original')).toBeNull();
  });

  it('shows the tool, its arguments and that it is running', () => {
    show(
      item((l) => {
        l.toolCall({ call_id: 'c1', name: 'run_command', args: { command: 'go test ./...' } });
        l.permission('c1', 'run_command', 'allow', 'you');
      }),
    );
    expect(screen.getByTestId('tool-name').textContent).toBe('run_command');
    expect(screen.getByTestId('tool-args').textContent).toContain('"command": "go test ./..."');
    expect(screen.getByTestId('call-status').textContent).toContain('Running');
    expect(screen.getByRole('status', { name: 'Running' })).toBeTruthy();
    expect(screen.getByTestId('permission').textContent).toContain('Allowed by you');
  });

  it('styles a validation error and says it was not run', () => {
    show(
      item((l) =>
        l.toolCall({ call_id: 'c1', name: 'run_command', valid: false, error_kind: 'invalid_args', problem: 'command must be a string' }),
      ),
    );
    const box = screen.getByTestId('validation-error');
    expect(box.textContent).toContain('Invalid arguments');
    expect(box.textContent).toContain('command must be a string');
    expect(box.textContent).toContain('Not run');
    expect(screen.getByTestId('call-status').textContent).toContain('Invalid arguments');
  });

  it('shows who denied it', () => {
    show(
      item((l) => {
        l.toolCall({ call_id: 'c1', name: 'run_command' });
        l.permission('c1', 'run_command', 'deny', 'rule: outside the workspace');
      }),
    );
    expect(screen.getByTestId('call-status').textContent).toContain('Denied');
    expect(screen.getByTestId('permission').textContent).toContain('Denied by rule: outside the workspace');
  });

  it('shows duration and exit code when done', () => {
    show(
      item((l) => {
        l.toolCall({ call_id: 'c1', name: 'run_command' });
        l.permission('c1', 'run_command', 'allow');
        l.result({ call_id: 'c1', name: 'run_command', content: 'FAIL', is_error: true, error_kind: 'failed', exit_code: 2, duration_ms: 1500 });
      }),
    );
    expect(screen.getByTestId('call-status').textContent).toContain('Failed');
    expect(screen.getByTestId('exit-code').textContent).toBe('exit code 2');
    expect(screen.getByText('1.50 s')).toBeTruthy();
  });

  it('says a call that never finished was cancelled when the run ended', () => {
    show(item((l) => l.toolCall({ call_id: 'c1', name: 'run_command' })), { runEnded: true });
    expect(screen.getByTestId('call-status').textContent).toContain('Never finished');
  });

  it('shows the approval inline and calls back with the answer', async () => {
    const onanswer = vi.fn();
    const approval: Approval = {
      id: 'ap1',
      session_id: 's1',
      call_id: 'c1',
      seq: 5,
      tool: 'run_command',
      args: { command: 'go test ./...' },
      display: { command: 'go test ./...', path: '/home/me/tally' },
      summary: 'Run a shell command',
      call: { tool: 'run_command', read_only: false, command: 'go test ./...' },
    };
    show(
      item((l) => l.toolCall({ call_id: 'c1', name: 'run_command' })),
      { approval, onanswer },
    );
    expect(screen.getByTestId('call-status').textContent).toContain('Waiting for your approval');
    const card = screen.getByTestId('approval-card');
    expect(within(card).getByTestId('approval-command').textContent).toBe('go test ./...');
    expect(card.textContent).toContain('/home/me/tally');
    await fireEvent.click(within(card).getByTestId('approve-session-button'));
    await fireEvent.click(within(card).getByTestId('approve-button'));
    expect(onanswer.mock.calls).toEqual([
      [true, 'session'],
      [true, 'once'],
    ]);
  });

  describe('a running command', () => {
    const running = () =>
      item((l) => {
        l.toolCall({ call_id: 'c1', name: 'run_command', args: { command: 'go test ./...' } });
        l.permission('c1', 'run_command', 'allow', 'you');
      });
    const streamed = (omitted = 0): CallOutput =>
      applyOutput(new Map(), [
        {
          session_id: 's1',
          run: 1,
          round: 1,
          content: '',
          thinking: '',
          call_id: 'c1',
          output: [
            { stream: 'stdout', text: 'ok  pkg/a\n' },
            { stream: 'stderr', text: 'FAIL pkg/b\n' },
          ],
          omitted,
        },
      ]).get(outputKey('s1', 'c1'))!;
    const showRunning = (c: CallItem, props: Record<string, unknown>) =>
      render(ToolCallCard, {
        props: { id: c.key, item: c, state: callStatus(c, { approvalPending: false, runEnded: false }), showLive: true, ...props },
      });

    it('shows its output, stderr apart, with the time it has run ticking, and Stop sends the stop', async () => {
      vi.useFakeTimers();
      const c = running();
      vi.setSystemTime(Date.parse(c.permission!.time) + 12_300);
      const onstop = vi.fn();
      showRunning(c, { output: streamed(2048), onstop });
      const text = screen.getByTestId('command-output-text');
      expect(text.textContent).toBe('ok  pkg/a\nFAIL pkg/b\n\n… 2,048 bytes more');
      expect(text.querySelector('[data-stream="stderr"]')?.textContent).toBe('FAIL pkg/b\n');
      expect(screen.getByTestId('command-elapsed').textContent?.trim()).toBe('12.3 s');
      await vi.advanceTimersByTimeAsync(1000);
      expect(screen.getByTestId('command-elapsed').textContent?.trim()).toBe('13.3 s');
      await fireEvent.click(screen.getByTestId('stop-command-button'));
      expect(onstop).toHaveBeenCalledTimes(1);
    });

    it('says when there is no output yet, and Stop waits while a stop is on its way', () => {
      showRunning(running(), { onstop: () => {}, stopping: true });
      expect(screen.getByTestId('command-output-text').textContent).toBe('No output yet.');
      const stop = screen.getByTestId('stop-command-button') as HTMLButtonElement;
      expect(stop.disabled).toBe(true);
      expect(stop.textContent).toContain('Stopping');
    });

    it('gives way to the result once it is there', () => {
      const c = item((l) => {
        l.toolCall({ call_id: 'c1', name: 'run_command' });
        l.permission('c1', 'run_command', 'allow');
        l.result({ call_id: 'c1', name: 'run_command', content: 'stopped', is_error: true, error_kind: 'stopped', exit_code: 137 });
      });
      showRunning(c, { output: streamed(), onstop: () => {} });
      expect(screen.queryByTestId('command-output')).toBeNull();
      expect(screen.queryByTestId('stop-command-button')).toBeNull();
      expect(screen.getByTestId('call-status').textContent).toContain('Stopped by you');
    });

    it('shows no live output in a playback', () => {
      render(ToolCallCard, { props: { id: 'x', item: running(), state: { status: 'running', label: 'Running' }, output: streamed(), onstop: () => {} } });
      expect(screen.queryByTestId('command-output')).toBeNull();
    });
  });
});
