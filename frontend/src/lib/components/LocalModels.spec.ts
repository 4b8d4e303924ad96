// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/svelte';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { recording } from '../replay/recordings';
import type { ReadinessReport, RenderedPrompt } from '../types';
import ReadinessChecklist from './ReadinessChecklist.svelte';
import RenderedPromptView from './RenderedPromptView.svelte';

afterEach(cleanup);

/** The answers the engine recorded to a query of small_model (backend/session/recordings_small_test.go). */
function answers(method: string): unknown[] {
  return recording('small_model')
    .steps.filter((s) => s.query?.method === method)
    .map((s) => s.query!.result);
}
// What the engine recorded is what Go encoded from these types.
const rendered = (): RenderedPrompt => answers('renderedPrompt')[0] as RenderedPrompt;
const reports = (): ReadinessReport[] => answers('checkModel') as ReadinessReport[];

describe('As the model read it', () => {
  it('shows the rendered text with the markup marked, and says it was rendered now with the current template', async () => {
    const load = vi.fn(async () => rendered());
    render(RenderedPromptView, { props: { load } });
    const note = await screen.findByTestId('rendered-note');
    expect(note.textContent).toContain("Rendered now, with the model's current template");
    expect(note.textContent).toContain('514cf42a1ceb');
    expect(note.textContent).toContain('if the model was pulled again since');
    const text = screen.getByTestId('rendered-text');
    expect(text.textContent).toBe(rendered().text);
    const marks = [...text.querySelectorAll('[data-markup]')].map((m) => m.textContent);
    expect(marks.filter((m) => m === '<|im_start|>')).toHaveLength(5);
    expect(marks).toEqual(expect.arrayContaining(['<tools>', '</tools>', '<tool_call>', '<tool_response>', '</tool_response>']));
    expect(screen.getByTestId('rendered-stats').textContent).toContain('pieces of template markup');
    // Render again asks Ollama again.
    await fireEvent.click(screen.getByTestId('rendered-again'));
    await waitFor(() => expect(load).toHaveBeenCalledTimes(2));
  });

  it('says what to do when Ollama is not running, and tries again', async () => {
    const load = vi
      .fn<() => Promise<RenderedPrompt>>()
      .mockRejectedValueOnce(new Error('Ollama is not running at http://127.0.0.1:11434 — start it with `ollama serve`'))
      .mockRejectedValueOnce(new Error('model "qwen3:0.6b" is not installed in Ollama — run `ollama pull qwen3:0.6b`'))
      .mockResolvedValueOnce(rendered());
    render(RenderedPromptView, { props: { load } });
    const err = await screen.findByTestId('rendered-error');
    expect(err.getAttribute('role')).toBe('alert');
    expect(err.textContent).toContain('start it with `ollama serve`');
    await fireEvent.click(screen.getByText('Try again'));
    await waitFor(() => expect(screen.getByTestId('rendered-error').textContent).toContain('run `ollama pull qwen3:0.6b`'));
    await fireEvent.click(screen.getByText('Try again'));
    expect(await screen.findByTestId('rendered-text')).toBeTruthy();
    expect(screen.queryByTestId('rendered-error')).toBeNull();
  });

  it('says a pending request is what the model will read when stepped, with the edits applied', async () => {
    render(RenderedPromptView, { props: { load: async () => rendered(), pending: true } });
    expect((await screen.findByTestId('rendered-note')).textContent).toContain('what the model will read when you step, with the edits applied so far');
  });
});

describe('the readiness checklist', () => {
  const props = (report: ReadinessReport | null, extra: Record<string, unknown> = {}) => ({
    report,
    roundTrip: true,
    onroundtrip: vi.fn(),
    onretry: vi.fn(),
    ...extra,
  });
  const lines = () => screen.getAllByTestId('readiness-item').map((i) => `${i.getAttribute('data-check')}:${i.getAttribute('data-status')}`);

  it('lists each check with its status, and a fix for what is not fine', () => {
    const [, , call, noTools, printed] = reports();
    render(ReadinessChecklist, { props: props(call!) });
    expect(lines()).toEqual(['tools:ok', 'fit:ok', 'schemas:ok', 'round_trip:ok']);
    expect(screen.queryByTestId('readiness-fix')).toBeNull();
    cleanup();
    render(ReadinessChecklist, { props: props(noTools!) });
    expect(lines()).toEqual(['tools:fail', 'fit:ok', 'schemas:ok', 'round_trip:skipped']);
    expect(screen.getByTestId('readiness-fix').textContent).toContain('Pick a model that lists "tools"');
    cleanup();
    render(ReadinessChecklist, { props: props(printed!) });
    expect(lines()).toEqual(['tools:ok', 'fit:ok', 'schemas:ok', 'round_trip:warn']);
    expect(screen.getByTestId('readiness-reply').textContent).toContain('<tool_call>');
  });

  it('turns the round trip on and off, and checks again after an error', async () => {
    const p = props(null, { error: 'Ollama is not running at http://127.0.0.1:11434 — start it with `ollama serve`', roundTrip: false });
    render(ReadinessChecklist, { props: p });
    expect(screen.getByTestId('readiness-error').textContent).toContain('ollama serve');
    await fireEvent.click(screen.getByText('Check again'));
    expect(p.onretry).toHaveBeenCalled();
    await fireEvent.click(screen.getByTestId('readiness-round-trip'));
    expect(p.onroundtrip).toHaveBeenCalledWith(true);
  });
});
