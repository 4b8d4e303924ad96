// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/svelte';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ModelRequestEvent, Try, TryResult } from '../types';
import TryPanel from './TryPanel.svelte';

afterEach(cleanup);

const request = {
  session_id: 's1',
  seq: 3,
  run: 1,
  round: 1,
  kind: 'model_request',
  payload: { model: 'scripted', host: 'http://10.0.0.5:11434', host_name: 'gpu-box', options: { num_ctx: 8192, temperature: 0.2 }, system: '', history_added: [], message_count: 2, prompt_estimate: 10 },
} as unknown as ModelRequestEvent;

const result: TryResult = {
  session: 's1',
  at: 3,
  body: '{}',
  exact: false,
  changed: ['model'],
  recorded: { model: 'scripted', options: { num_ctx: 8192, temperature: 0.2 }, content: 'a', tool_calls: [], done_reason: 'stop', incomplete: false, metrics: {} as never },
  alternative: { model: 'other', options: { num_ctx: 8192, temperature: 0.2 }, content: 'b', tool_calls: [], done_reason: 'stop', incomplete: false, metrics: {} as never },
  compare: { same_text: false, same_thinking: true, same_calls: true, text: [{ op: 'removed', text: 'a' }, { op: 'added', text: 'b' }], calls: [], figures: [] },
};

function show(tryRequest: (t: Try) => Promise<TryResult>, onadopt?: (r: TryResult) => Promise<void>) {
  const actions = { tryRequest: vi.fn(tryRequest), cancelTry: vi.fn(async () => true), onTry: vi.fn(() => () => {}), listModelsOn: vi.fn(async () => [{ name: 'other', capabilities: ['tools'] }] as never) };
  render(TryPanel, { props: { request, actions, hosts: ['gpu-box'], load: async () => '{"model":"scripted","messages":[]}', onadopt } });
  return actions;
}

describe('TryPanel', () => {
  it('sends the edited body only while editing, and clears an error on the next send', async () => {
    let fail = true;
    const actions = show(async () => {
      if (fail) throw new Error('the request body must be one JSON object');
      return result;
    });
    // The models listed first are those of the host the session runs on.
    await waitFor(() => expect(actions.listModelsOn).toHaveBeenCalledWith('gpu-box'));
    await fireEvent.click(screen.getByTestId('try-edit-body'));
    const body = (await screen.findByTestId('try-body')) as HTMLTextAreaElement;
    await waitFor(() => expect(body.value).toContain('scripted'));
    await fireEvent.input(body, { target: { value: 'nope' } });
    await fireEvent.click(screen.getByTestId('try-send'));
    await screen.findByTestId('try-error');
    expect(actions.tryRequest.mock.calls[0]![0].body).toBe('nope');

    fail = false;
    await fireEvent.click(screen.getByTestId('try-edit-body'));
    await fireEvent.input(screen.getByTestId('try-num-ctx'), { target: { value: '4096' } });
    await fireEvent.click(screen.getByTestId('try-send'));
    await screen.findByTestId('try-result');
    const sent = actions.tryRequest.mock.calls[1]![0];
    expect(sent.body).toBeUndefined();
    expect(sent.num_ctx).toBe(4096);
    expect(sent.temperature).toBeUndefined();
    expect(screen.queryByTestId('try-error')).toBeNull();
  });

  it('adopts the answer shown: Adopt hands the try back whole, and says why when the fork is refused', async () => {
    let refuse = true;
    const onadopt = vi.fn(async (r: TryResult) => {
      if (refuse) throw new Error('the try\'s body changes "options", which a session\'s log cannot record');
      expect(r).toBe(result);
    });
    show(async () => result, onadopt);
    expect(screen.queryByTestId('try-adopt')).toBeNull();
    await fireEvent.click(screen.getByTestId('try-send'));
    await screen.findByTestId('try-result');
    await fireEvent.click(screen.getByTestId('try-adopt'));
    expect((await screen.findByTestId('try-adopt-error')).textContent).toContain('cannot record');
    expect(onadopt).toHaveBeenCalledWith(result);

    refuse = false;
    await fireEvent.click(screen.getByTestId('try-adopt'));
    await waitFor(() => expect(onadopt).toHaveBeenCalledTimes(2));
    await waitFor(() => expect(screen.queryByTestId('try-adopt-error')).toBeNull());
  });

  it('offers no Adopt where nothing can be forked', async () => {
    show(async () => result);
    await fireEvent.click(screen.getByTestId('try-send'));
    await screen.findByTestId('try-result');
    expect(screen.queryByTestId('try-adopt')).toBeNull();
  });
});
