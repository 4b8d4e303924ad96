// @vitest-environment jsdom
// Text from the model, a command, a file or a server is shown with its
// control characters escaped, in every card that shows it: a card whose
// content holds \x1b[2J shows "\x1b[2J", not an invisible ESC, and a bidi
// override cannot reorder a command on the approval card. The sequences,
// and how each must read, are the Go package's (replay/visible.json).
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/svelte';
import { afterEach, describe, expect, it } from 'vitest';
import table from '../replay/visible.json';
import { applyOutput, outputKey, visible } from '../timeline';
import type { Approval } from '../types';
import ApprovalCard from './ApprovalCard.svelte';
import CommandOutput from './CommandOutput.svelte';
import Markdown from './Markdown.svelte';
import MessageCard from './MessageCard.svelte';
import ObservationCard from './ObservationCard.svelte';
import ResponseCard from './ResponseCard.svelte';
import TextDiff from './TextDiff.svelte';
import UserMessageCard from './UserMessageCard.svelte';

afterEach(cleanup);

interface Case {
  name: string;
  raw: string;
  shown: string;
}
const cases = table as Case[];
const hostile = cases.filter((c) => !c.name.startsWith('plain '));

/** The characters of s a terminal or the page would obey (written apart from visible's own rules). */
function rawControls(s: string): string[] {
  const found: string[] = [];
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const bad =
      (c < 0x20 && c !== 0x0a && c !== 0x09 && !(c === 0x0d && s.charCodeAt(i + 1) === 0x0a)) ||
      (c >= 0x7f && c <= 0x9f) ||
      (c >= 0x202a && c <= 0x202e) ||
      (c >= 0x2066 && c <= 0x2069) ||
      c === 0x200e ||
      c === 0x200f ||
      c === 0x061c;
    if (bad) found.push(`U+${c.toString(16).padStart(4, '0')} at ${i}`);
  }
  return found;
}

describe('visible', () => {
  it('shows each sequence as the Go side does', () => {
    expect(cases.length).toBeGreaterThan(15);
    for (const c of cases) expect(visible(c.raw), c.name).toBe(c.shown);
  });

  it('gives text without a control character back as it is', () => {
    const s = 'plain text\nwith a tab\tand CRLF\r\n';
    expect(visible(s)).toBe(s);
  });
});

describe('the cards', () => {
  const shows = (el: HTMLElement, c: Case, where: string) => {
    const text = el.textContent ?? '';
    expect(rawControls(text), `${where}, ${c.name}: raw characters`).toEqual([]);
    expect(text, `${where}, ${c.name}`).toContain(c.shown);
  };

  for (const c of hostile) {
    it(`show ${c.name} escaped`, () => {
      const r = render(ResponseCard, { props: { id: 'e:1', content: `says ${c.raw}`, thinking: `thinks ${c.raw}`, toolCalls: [{ id: 'x', index: 0, name: `tool${c.raw}`, args: { command: c.raw } }] } });
      shows(r.container, c, 'the answer');
      cleanup();

      const u = render(UserMessageCard, { props: { id: 'e:0', text: `asks ${c.raw}`, run: 1 } });
      shows(u.container, c, 'the prompt');
      cleanup();

      const o = render(ObservationCard, {
        props: {
          id: 'e:2',
          result: { call_id: 'x', name: 'run_command', content: `prints ${c.raw}\nexit code 0`, is_error: false, truncated: false, bytes: 10, duration_ms: 1, display: { command: `printf ${c.raw}` } },
        },
      });
      shows(o.container, c, 'the observation');
      cleanup();

      const m = render(MessageCard, { props: { id: 'e:3', kind: 'error', code: 'model_error', message: `Ollama said: ${c.raw}` } });
      shows(m.container, c, 'an error');
      cleanup();

      const md = render(Markdown, { props: { source: `**done** ${c.raw}` } });
      shows(md.container, c, 'markdown');
      cleanup();

      const approval: Approval = {
        id: 'ap1',
        session_id: 's1',
        call_id: 'c1',
        seq: 7,
        tool: 'run_command',
        args: { command: `echo ${c.raw}` },
        display: { command: `echo ${c.raw}` },
        summary: `Run echo ${c.raw}`,
        call: { tool: 'run_command', read_only: false },
      };
      render(ApprovalCard, { props: { approval, onanswer: () => {} } });
      shows(screen.getByTestId('approval-command'), c, 'the approval card');
      cleanup();

      const out = applyOutput(new Map(), [{ session_id: 's', run: 1, round: 1, content: '', thinking: '', call_id: 'c', output: [{ stream: 'stdout', text: `out ${c.raw}` }] }]);
      render(CommandOutput, { props: { output: out.get(outputKey('s', 'c'))!, running: true } });
      shows(screen.getByTestId('command-output-text'), c, 'a running command');
    });
  }

  it('show a file changed at a pause and the raw JSON of an event escaped', async () => {
    for (const c of hostile) {
      const d = render(TextDiff, { props: { before: 'before\n', after: `after ${c.raw}\n`, testid: 'td' } });
      shows(d.container, c, 'a text diff');
      cleanup();
      const json = JSON.stringify({ content: c.raw });
      render(MessageCard, { props: { id: 'e:1', kind: 'notice', code: 'x', message: 'm', raw: { load: async () => json, exact: true } } });
      await fireEvent.click(screen.getByTestId('raw-toggle'));
      await waitFor(() => expect(screen.getByTestId('raw-content')).toBeTruthy());
      expect(rawControls(screen.getByTestId('raw-content').textContent ?? ''), `the raw view, ${c.name}`).toEqual([]);
      cleanup();
    }
  });

  it('catches a control character written as an HTML entity in markdown', () => {
    const r = render(Markdown, { props: { source: 'ok &#x202e;deined&#x202c; &#27;[2J' } });
    expect(rawControls(r.container.textContent ?? '')).toEqual([]);
    expect(r.container.textContent).toContain('\\u202edeined\\u202c');
  });
});
