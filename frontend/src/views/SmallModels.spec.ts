// @vitest-environment jsdom
// Local models, small ones especially: the readiness checklist when a
// model is picked, the tools a session offers, and a request as the model
// read it, on a replay of the Go engine's recording small_model
// (backend/session/recordings_small_test.go).
import { fireEvent, screen, waitFor, within } from '@testing-library/svelte';
import { afterEach, describe, expect, it } from 'vitest';
import { ended, finish, play, played, send } from './testing';

afterEach(() => {
  localStorage.clear();
  finish();
});

const item = (check: string) => screen.getAllByTestId('readiness-item').find((i) => i.getAttribute('data-check') === check)!;
const statusOf = (check: string) => item(check).getAttribute('data-status');
const pickModel = async (name: string) => {
  const o = screen.getAllByTestId('model-option').find((x) => x.getAttribute('data-model') === name)!;
  await fireEvent.click(within(o).getByRole('radio'));
};
const tool = (list: string, name: string) =>
  within(screen.getByTestId(list))
    .getAllByTestId(`${list}-tool`)
    .find((t) => t.getAttribute('data-tool') === name)!
    .querySelector('input') as HTMLInputElement;

// One flow through the whole recording: longer than the other flows.
describe('picking a small model', { timeout: 45_000 }, () => {
  it('checks the model, offers fewer tools, starts the session with them and shows a request as the model read it', async () => {
    const replay = play('small_model', { pick: '/home/me/project' });
    await screen.findByTestId('welcome');
    await fireEvent.keyDown(window, { key: 'n', ctrlKey: true });
    await fireEvent.click(await screen.findByTestId('pick-workspace'));

    // qwen3 with every tool: it can be offered tools, and the schemas fit.
    await waitFor(() => expect(statusOf('fit')).toBe('ok'), { timeout: 8000 });
    expect(statusOf('tools')).toBe('ok');
    expect(statusOf('round_trip')).toBe('skipped');
    expect(item('fit').textContent).toContain('7 tool schemas (about 1450 tokens) take about 1544 of num_ctx 16384');
    expect(within(screen.getByTestId('new-tools')).getByText(/read_file/).closest('label')!.textContent).toContain('≈271 tokens (estimated)');

    // Five tools off: only read_file and list_dir; the schemas take less.
    for (const t of ['write_file', 'edit_file', 'glob', 'grep', 'run_command']) await fireEvent.click(tool('new-tools', t));
    expect(screen.getByTestId('new-tools-summary').textContent).toContain('2 of 7 tools offered');
    await waitFor(() => expect(item('fit').textContent).toContain('2 tool schemas'), { timeout: 8000 });

    // One real call: the model made it.
    await fireEvent.click(screen.getByTestId('readiness-round-trip'));
    await waitFor(() => expect(statusOf('round_trip')).toBe('ok'), { timeout: 8000 });
    expect(item('round_trip').textContent).toContain('made a real tool call: list_dir {"path":"."} (not run)');

    // A model without tools fails, and says what to do.
    await pickModel('gemma3:1b');
    await waitFor(() => expect(statusOf('tools')).toBe('fail'), { timeout: 8000 });
    expect(within(item('tools')).getByTestId('readiness-fix').textContent).toContain('Pick a model that lists "tools"');
    expect(statusOf('round_trip')).toBe('skipped');

    // A model that prints its call as text: a warning, with what it wrote.
    await pickModel('llama3.2:1b');
    await waitFor(() => expect(statusOf('round_trip')).toBe('warn'), { timeout: 8000 });
    expect(item('round_trip').textContent).toContain('printed the call as text (tool_call tag)');
    expect(within(item('round_trip')).getByTestId('readiness-fix').textContent).toContain('Recover calls printed as text');
    expect(within(item('round_trip')).getByTestId('readiness-reply').textContent).toContain('<tool_call>{"name": "list_dir"');

    // Back to qwen3, and start: the session offers the two tools.
    await pickModel('qwen3:0.6b');
    await waitFor(() => expect(statusOf('round_trip')).toBe('ok'), { timeout: 8000 });
    await fireEvent.click(screen.getByTestId('create-session'));
    await screen.findByTestId('empty-session');
    expect(replay.commandsOf('create')).toEqual([{ do: 'create', workspace: '/home/me/project', model: 'qwen3:0.6b', tools: ['read_file', 'list_dir'] }]);
    expect(screen.getByTestId('session-tools').textContent).toContain('Tools 2 of 7');

    await send('What does README.md say?');
    await ended();

    // What the model saw, as the model read it: rendered now by Ollama.
    await fireEvent.click(screen.getByTestId('model-saw-button'));
    const saw = await screen.findByTestId('model-saw');
    await fireEvent.click(within(saw).getByTestId('model-saw-view-read'));
    const note = await within(saw).findByTestId('rendered-note');
    expect(note.textContent).toContain('Rendered now');
    expect(note.textContent).toContain("with the model's current template");
    expect(note.textContent).toContain('qwen3:0.6b');
    expect(note.textContent).toContain('514cf42a1ceb');
    const text = within(saw).getByTestId('rendered-text');
    // The tool schemas sit in the system turn; the result is framed by the template.
    expect(text.textContent).toContain('<tools>\n{"type":"function","function":{"name":"read_file"');
    expect(text.textContent).not.toContain('"name":"run_command"');
    expect(text.textContent).toContain('<|im_start|>user\n<tool_response>\n     1\t# Demo');
    const marks = [...text.querySelectorAll('[data-markup]')].map((m) => m.textContent);
    expect(marks).toContain('<|im_start|>');
    expect(marks).toContain('<tool_response>');
    expect(replay.callsOf('renderedPrompt')).toEqual([['session-1', 7]]);
    // As sent again: the parts of the body.
    await fireEvent.click(within(saw).getByTestId('model-saw-view-sent'));
    expect(await within(saw).findByTestId('model-saw-tools')).toBeTruthy();

    // The session's Tools panel checks its model for the tools it offers,
    // and drops list_dir for its next run: the check follows.
    const panel = screen.getByTestId('session-tools');
    await fireEvent.click(within(panel).getByText(/Tools 2 of 7/));
    (panel as HTMLDetailsElement).open = true;
    panel.dispatchEvent(new Event('toggle'));
    const fit = () => within(panel).getAllByTestId('readiness-item').find((i) => i.getAttribute('data-check') === 'fit')!;
    await waitFor(() => expect(fit().textContent).toContain('2 tool schemas'), { timeout: 8000 });
    await fireEvent.click(tool('session-tools-list', 'list_dir'));
    await played(replay);
    expect(replay.commandsOf('set_tools')).toEqual([{ do: 'set_tools', session: 'session-1', tools: ['read_file'] }]);
    await waitFor(() => expect(screen.getByTestId('session-tools').textContent).toContain('Tools 1 of 7'));
    await waitFor(() => expect(fit().textContent).toContain('1 tool schema (about'), { timeout: 8000 });
  });
});
