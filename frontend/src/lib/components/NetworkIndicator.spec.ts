// @vitest-environment jsdom
// The list of every connection Loupe made: what it says closed, and the
// addresses with their counts when opened.
import { cleanup, fireEvent, render, screen } from '@testing-library/svelte';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Connection } from '../types';
import NetworkIndicator from './NetworkIndicator.svelte';

afterEach(cleanup);

const local: Connection = { host: '127.0.0.1', port: '11434', count: 3, failed: 0, loopback: true, remote: '127.0.0.1:11434' };
const gpu: Connection = { host: '10.0.0.5', port: '11434', count: 2, failed: 1, loopback: false, remote: '10.0.0.5:11434' };

describe('NetworkIndicator', () => {
  it('says when Loupe has talked to this machine only, and lists each address with its count when opened', async () => {
    const onrefresh = vi.fn();
    render(NetworkIndicator, { props: { connections: [local], loaded: true, onrefresh } });
    const toggle = screen.getByTestId('network-toggle');
    expect(toggle.textContent).toContain('this machine only · 1 address');
    expect(screen.getByTestId('network-indicator').getAttribute('data-offline')).toBe('true');
    expect(screen.queryByTestId('network-list')).toBeNull();
    await fireEvent.click(toggle);
    expect(onrefresh).toHaveBeenCalledTimes(1);
    expect(toggle.getAttribute('aria-expanded')).toBe('true');
    const rows = screen.getAllByTestId('network-row');
    expect(rows.map((r) => [...r.querySelectorAll('td')].map((td) => td.textContent?.trim()))).toEqual([['127.0.0.1:11434', '3', 'here']]);
  });

  it('shows a host off this machine apart, with its failed tries', async () => {
    render(NetworkIndicator, { props: { connections: [gpu, local], loaded: true } });
    expect(screen.getByTestId('network-toggle').textContent).toContain('2 addresses, 1 off this machine');
    expect(screen.getByTestId('network-indicator').getAttribute('data-offline')).toBe('false');
    await fireEvent.click(screen.getByTestId('network-toggle'));
    const rows = screen.getAllByTestId('network-row');
    expect(rows.map((r) => r.getAttribute('data-address'))).toEqual(['10.0.0.5:11434', '127.0.0.1:11434']);
    expect(rows[0]!.textContent).toContain('(1 failed)');
    expect(rows[0]!.textContent).toContain('network');
  });

  it('says when nothing was dialled yet, and brackets an IPv6 address', async () => {
    const { rerender } = render(NetworkIndicator, { props: { connections: [], loaded: true } });
    expect(screen.getByTestId('network-toggle').textContent).toContain('no connections yet');
    await rerender({ connections: [{ host: '::1', port: '11434', count: 1, failed: 0, loopback: true }] });
    await fireEvent.click(screen.getByTestId('network-toggle'));
    expect(screen.getByTestId('network-row').getAttribute('data-address')).toBe('[::1]:11434');
  });
});
