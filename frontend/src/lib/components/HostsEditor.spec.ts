// @vitest-environment jsdom
// Settings' named Ollama hosts, in the form: add, edit, test each as
// typed, remove, and what Save sends.
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { HostCheck } from '../types';
import { goSettings } from '../testing/settings';
import SettingsForm from './SettingsForm.svelte';
import { judged } from '../testing/judged';

const formJudged = { builtinTools: judged.tools, ruleChecks: judged.checks, checkRule: judged.check };

afterEach(cleanup);

const saved = goSettings({
  max_rounds: 50,
  num_ctx_cap: 16384,
  temperature: 0.2,
  permission_mode: 'ask',
  tools: {},
  rules: [],
  system_prompt: 'x',
  hosts: [{ name: 'lab', url: 'http://10.0.0.7:11434' }],
});

const rows = () => screen.getAllByTestId('host-row');

describe('named Ollama hosts in Settings', () => {
  it('adds a host, tests each as typed, removes one, and saves the list', async () => {
    const onsave = vi.fn();
    const ontest = vi.fn(async (url: string): Promise<HostCheck> =>
      url.includes('10.0.0.5')
        ? { host: 'http://10.0.0.5:11434', reachable: true, version: '0.17.4', message: '' }
        : { host: url, reachable: false, version: '', message: 'Ollama is not running at ' + url + ' — start it with `ollama serve`' },
    );
    render(SettingsForm, { props: {
      ...formJudged, settings: saved, onsave, oncancel: () => {}, ontest } });
    expect(rows()).toHaveLength(1);
    expect((within(rows()[0]!).getByTestId('host-name') as HTMLInputElement).value).toBe('lab');

    await fireEvent.click(screen.getByTestId('host-add'));
    const added = rows()[1]!;
    await fireEvent.input(within(added).getByTestId('host-name'), { target: { value: 'gpu-box' } });
    await fireEvent.input(within(added).getByTestId('host-url'), { target: { value: '10.0.0.5:11434' } });
    await fireEvent.click(within(added).getByTestId('host-test'));
    const ok = await within(added).findByTestId('host-result');
    expect(ok.textContent).toContain('Ollama 0.17.4 answers at http://10.0.0.5:11434');
    expect(ontest).toHaveBeenLastCalledWith('10.0.0.5:11434');

    // The other row's test says which host does not answer.
    await fireEvent.click(within(rows()[0]!).getByTestId('host-test'));
    const bad = await within(rows()[0]!).findByTestId('host-result');
    expect(bad.getAttribute('data-reachable')).toBe('false');
    expect(bad.textContent).toContain('No answer from lab at http://10.0.0.7:11434');

    // A result is for the address tested: editing it takes the result away.
    await fireEvent.input(within(added).getByTestId('host-url'), { target: { value: '10.0.0.6:11434' } });
    expect(within(rows()[1]!).queryByTestId('host-result')).toBeNull();
    await fireEvent.input(within(rows()[1]!).getByTestId('host-url'), { target: { value: '10.0.0.5:11434' } });

    await fireEvent.click(within(rows()[0]!).getByTestId('host-remove'));
    expect(rows()).toHaveLength(1);
    expect((within(rows()[0]!).getByTestId('host-name') as HTMLInputElement).value).toBe('gpu-box');
    await fireEvent.click(screen.getByTestId('settings-save'));
    expect(onsave).toHaveBeenCalledTimes(1);
    expect(onsave.mock.calls[0]![0].hosts).toEqual([{ name: 'gpu-box', url: '10.0.0.5:11434' }]);
  });

  it('says there are none, and shows the backend\u2019s refusal of a name as it said it', async () => {
    const onsave = vi.fn();
    const { rerender } = render(SettingsForm, { props: {
      ...formJudged, settings: { ...saved, hosts: [] }, onsave, oncancel: () => {} } });
    expect(screen.getByTestId('hosts-empty').textContent).toContain('No other hosts');
    // Without a way to test, rows have no Test button.
    await fireEvent.click(screen.getByTestId('host-add'));
    expect(within(rows()[0]!).queryByTestId('host-test')).toBeNull();
    await rerender({ error: 'settings not saved: the Ollama host name "local" is taken by the local host (the one above); choose another' });
    await waitFor(() => expect(screen.getByTestId('settings-error').textContent).toContain('is taken by the local host'));
  });
});
