// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/svelte';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { goSettings } from '../testing/settings';
import SettingsForm from './SettingsForm.svelte';
import { judged } from '../testing/judged';

const formJudged = { builtinTools: judged.tools, ruleChecks: judged.checks, checkRule: judged.check };

afterEach(cleanup);

const saved = goSettings({ max_rounds: 50, num_ctx_cap: 16384, temperature: 0.2, permission_mode: 'ask', tools: {}, rules: [], system_prompt: 'x', first_token_timeout_s: 600, stall_timeout_s: 300 });

describe('SettingsForm', () => {
  it('saves the waits for Ollama, and refuses one that is not a number of seconds', async () => {
    const onsave = vi.fn();
    render(SettingsForm, { props: {
      ...formJudged, settings: saved, onsave, oncancel: () => {} } });
    const first = screen.getByTestId('settings-first-token-timeout') as HTMLInputElement;
    expect(first.value).toBe('600');
    await fireEvent.input(first, { target: { value: '-5' } });
    expect(screen.getByRole('alert').textContent).toMatch(/first token must be a whole number of seconds/);
    expect((screen.getByTestId('settings-save') as HTMLButtonElement).disabled).toBe(true);
    await fireEvent.input(first, { target: { value: '120' } });
    await fireEvent.input(screen.getByTestId('settings-stall-timeout'), { target: { value: '0' } });
    await fireEvent.click(screen.getByTestId('settings-save'));
    expect(onsave).toHaveBeenCalledTimes(1);
    expect(onsave.mock.calls[0]![0]).toMatchObject({ first_token_timeout_s: 120, stall_timeout_s: 0 });
  });

  it('recovers calls printed as text by default, and saves it off and a repeat limit; refuses a limit out of range', async () => {
    const onsave = vi.fn();
    render(SettingsForm, { props: {
      ...formJudged, settings: saved, onsave, oncancel: () => {} } });
    const recover = screen.getByTestId('settings-recover-text-calls') as HTMLInputElement;
    const limit = screen.getByTestId('settings-repeat-limit') as HTMLInputElement;
    expect(recover.checked).toBe(true);
    expect(limit.value).toBe('3');
    await fireEvent.input(limit, { target: { value: '1' } });
    expect(screen.getByRole('alert').textContent).toMatch(/repeat limit must be a whole number of rounds from 2 to 100/);
    expect((screen.getByTestId('settings-save') as HTMLButtonElement).disabled).toBe(true);
    await fireEvent.input(limit, { target: { value: '5' } });
    await fireEvent.click(recover);
    await fireEvent.click(screen.getByTestId('settings-save'));
    expect(onsave.mock.calls[0]![0]).toMatchObject({ recover_text_calls: false, repeat_limit: 5 });
  });
});

describe('SettingsForm, sub-agents', () => {
  it('leaves sub-agents off by default and saves them on', async () => {
    const onsave = vi.fn();
    render(SettingsForm, { props: {
      ...formJudged, settings: saved, onsave, oncancel: () => {} } });
    const on = screen.getByTestId('settings-sub-agents') as HTMLInputElement;
    expect(on.checked).toBe(false);
    await fireEvent.click(on);
    await fireEvent.click(screen.getByTestId('settings-save'));
    expect(onsave.mock.calls[0]![0]).toMatchObject({ sub_agents: true });
  });
});

describe('SettingsForm, compaction', () => {
  it('compacts at 80 % keeping 2 rounds by default; saves it off, and refuses a share out of range', async () => {
    const onsave = vi.fn();
    render(SettingsForm, { props: {
      ...formJudged, settings: saved, onsave, oncancel: () => {} } });
    const on = screen.getByTestId('settings-compact') as HTMLInputElement;
    const at = screen.getByTestId('settings-compact-at') as HTMLInputElement;
    const keep = screen.getByTestId('settings-compact-keep') as HTMLInputElement;
    expect(on.checked).toBe(true);
    expect([at.value, keep.value]).toEqual(['80', '2']);
    await fireEvent.input(at, { target: { value: '5' } });
    expect(screen.getByRole('alert').textContent).toMatch(/Compaction must start at a whole percentage of num_ctx from 10 to 100/);
    expect((screen.getByTestId('settings-save') as HTMLButtonElement).disabled).toBe(true);
    await fireEvent.input(at, { target: { value: '70' } });
    await fireEvent.input(keep, { target: { value: '3' } });
    await fireEvent.click(on);
    expect(at.disabled).toBe(true);
    await fireEvent.click(screen.getByTestId('settings-save'));
    expect(onsave.mock.calls[0]![0]).toMatchObject({ compact: false, compact_at_percent: 70, compact_keep_rounds: 3 });
  });
});

describe('SettingsForm, changes not saved', () => {
  it('reports what was typed, starts from it again, and discards it on demand', async () => {
    let kept: unknown = 'never told';
    const { unmount } = render(SettingsForm, {
      props: {
      ...formJudged, settings: saved, onsave: () => {}, oncancel: () => {}, onunsaved: (d: unknown) => (kept = d) },
    });
    expect(kept).toBeNull();
    expect(screen.queryByTestId('settings-unsaved')).toBeNull();
    await fireEvent.input(screen.getByTestId('settings-stall-timeout'), { target: { value: '90' } });
    expect(screen.getByTestId('settings-unsaved').textContent).toMatch(/kept if you leave/);
    expect(kept).toMatchObject({ stall_timeout_s: 90 });
    unmount();
    // Back on the page: the typed value is there.
    render(SettingsForm, { props: {
      ...formJudged, settings: saved, onsave: () => {}, oncancel: () => {}, unsaved: kept as typeof saved, onunsaved: (d: unknown) => (kept = d) } });
    expect((screen.getByTestId('settings-stall-timeout') as HTMLInputElement).value).toBe('90');
    await fireEvent.click(screen.getByTestId('settings-discard'));
    expect((screen.getByTestId('settings-stall-timeout') as HTMLInputElement).value).toBe('300');
    expect(kept).toBeNull();
  });
});

describe('SettingsForm, the Ollama host', () => {
  const fromEnv = { host: 'http://box:11434', from: 'env', flag: '', env: 'http://box:11434' } as const;

  it('edits the host, says which host wins, and saves what was typed', async () => {
    const onsave = vi.fn();
    render(SettingsForm, { props: {
      ...formJudged, settings: saved, onsave, oncancel: () => {}, hosts: fromEnv } });
    const field = screen.getByTestId('settings-ollama-host') as HTMLInputElement;
    expect(field.value).toBe('');
    const hint = () => screen.getByTestId('settings-host-effective').textContent ?? '';
    expect(hint()).toContain('Now talking to http://box:11434 (from OLLAMA_HOST)');
    expect(hint()).toContain('Empty: Loupe uses OLLAMA_HOST, http://box:11434.');
    await fireEvent.input(field, { target: { value: 'localhost:11500' } });
    expect(hint()).toContain('Saved, this wins over OLLAMA_HOST (http://box:11434).');
    await fireEvent.click(screen.getByTestId('settings-save'));
    expect(onsave).toHaveBeenCalledTimes(1);
    expect(onsave.mock.calls[0]![0]).toMatchObject({ ollama_host: 'localhost:11500' });
  });

  it('says that a --host given at start wins over the field', () => {
    const hosts = { host: 'http://flag:1', from: 'flag', flag: 'http://flag:1', env: '' } as const;
    render(SettingsForm, { props: {
      ...formJudged, settings: { ...saved, ollama_host: 'http://set:2' }, onsave: () => {}, oncancel: () => {}, hosts } });
    expect(screen.getByTestId('settings-host-effective').textContent).toContain('started with --host http://flag:1, which wins over this field');
  });

  it('shows the backend\u2019s refusal of a host as it said it', () => {
    const error = 'settings not saved: the Ollama host "ftp://x" cannot be used: the scheme must be http or https, not "ftp"; type http:// or https://…';
    render(SettingsForm, { props: {
      ...formJudged, settings: { ...saved, ollama_host: 'ftp://x' }, error, onsave: () => {}, oncancel: () => {} } });
    expect(screen.getByTestId('settings-error').textContent).toBe(error);
  });

  it('tests the host as typed: the version where Ollama answers, why not where it does not, and what to type when it cannot be used', async () => {
    const ontest = vi.fn(async (host: string) => {
      if (host === 'gpu box') throw new Error('the Ollama host "gpu box" cannot be used: it holds a space; type http:// or https://…');
      if (host === 'localhost:1') return { host: 'http://localhost:1', reachable: false, version: '', message: 'Ollama is not running at http://localhost:1 — start it with `ollama serve`' };
      return { host: 'http://localhost:11500', reachable: true, version: '0.17.4', message: '' };
    });
    const onsave = vi.fn();
    render(SettingsForm, { props: {
      ...formJudged, settings: saved, onsave, oncancel: () => {}, ontest } });
    const field = screen.getByTestId('settings-ollama-host');
    const result = () => screen.getByTestId('settings-host-result');

    await fireEvent.input(field, { target: { value: 'localhost:11500' } });
    await fireEvent.click(screen.getByTestId('settings-host-test'));
    await waitFor(() => expect(result().textContent).toContain('Ollama 0.17.4 answers at http://localhost:11500'));
    expect(result().getAttribute('data-reachable')).toBe('true');
    expect(ontest).toHaveBeenLastCalledWith('localhost:11500');

    await fireEvent.input(field, { target: { value: 'localhost:1' } });
    expect(screen.queryByTestId('settings-host-result')).toBeNull(); // the result was for another host
    await fireEvent.click(screen.getByTestId('settings-host-test'));
    await waitFor(() => expect(result().textContent).toContain('No answer at http://localhost:1: Ollama is not running'));

    await fireEvent.input(field, { target: { value: 'gpu box' } });
    await fireEvent.click(screen.getByTestId('settings-host-test'));
    await waitFor(() => expect(result().textContent).toContain('cannot be used: it holds a space'));
    // Testing saves nothing.
    expect(onsave).not.toHaveBeenCalled();
  });

  it('keeps a host typed and not saved when the page is left', async () => {
    let kept: unknown = null;
    const { unmount } = render(SettingsForm, { props: {
      ...formJudged, settings: saved, onsave: () => {}, oncancel: () => {}, onunsaved: (d: unknown) => (kept = d) } });
    await fireEvent.input(screen.getByTestId('settings-ollama-host'), { target: { value: 'http://gpu-box:11434' } });
    expect(kept).toMatchObject({ ollama_host: 'http://gpu-box:11434' });
    unmount();
    render(SettingsForm, { props: {
      ...formJudged, settings: saved, onsave: () => {}, oncancel: () => {}, unsaved: kept as typeof saved } });
    expect((screen.getByTestId('settings-ollama-host') as HTMLInputElement).value).toBe('http://gpu-box:11434');
  });
});
