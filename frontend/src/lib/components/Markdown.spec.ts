// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen } from '@testing-library/svelte';
import { afterEach, describe, expect, it, vi } from 'vitest';
import Markdown from './Markdown.svelte';

afterEach(cleanup);

describe('Markdown', () => {
  it('renders formatting and strips script and onerror', () => {
    const { container } = render(Markdown, {
      props: { source: '**Done.** <script>window.hacked = 1</script><img src="x" onerror="window.hacked = 2">' },
    });
    expect(screen.getByText('Done.').tagName).toBe('STRONG');
    expect(container.querySelector('script')).toBeNull();
    expect(container.querySelector('[onerror]')).toBeNull();
    expect((window as unknown as { hacked?: number }).hacked).toBeUndefined();
  });

  it('hands web links to the app instead of navigating', async () => {
    const onlink = vi.fn();
    render(Markdown, { props: { source: 'See [Ollama](https://ollama.com) or [this](file:///etc/passwd).', onlink } });
    await fireEvent.click(screen.getByText('Ollama'));
    await fireEvent.click(screen.getByText('this'));
    expect(onlink).toHaveBeenCalledTimes(1);
    expect(onlink).toHaveBeenCalledWith('https://ollama.com');
  });
});
