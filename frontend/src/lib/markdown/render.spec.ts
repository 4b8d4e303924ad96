// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import { isExternalLink, renderMarkdown } from './render';

describe('renderMarkdown', () => {
  it('renders Markdown', () => {
    const html = renderMarkdown('# Title\n\n**bold** and `code`\n\n- one\n- two');
    expect(html).toContain('<h1>Title</h1>');
    expect(html).toContain('<strong>bold</strong>');
    expect(html).toContain('<code>code</code>');
    expect(html).toContain('<li>one</li>');
  });

  it('strips scripts, event handlers and javascript: links', () => {
    const html = renderMarkdown(
      'hi <script>alert(1)</script> <img src=x onerror="alert(2)"> <a href="javascript:alert(3)">x</a> <div onclick="alert(4)">y</div>',
    );
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/onerror/i);
    expect(html).not.toMatch(/onclick/i);
    expect(html).not.toMatch(/javascript:/i);
    expect(html).toContain('hi');
  });

  it('drops images and frames so nothing is fetched', () => {
    const html = renderMarkdown('![x](http://example.com/a.png) <iframe src="http://example.com"></iframe>');
    expect(html).not.toMatch(/<img|<iframe/i);
  });
});

describe('isExternalLink', () => {
  it('accepts only http(s) and mailto', () => {
    expect(isExternalLink('https://ollama.com')).toBe(true);
    expect(isExternalLink('mailto:a@b.c')).toBe(true);
    expect(isExternalLink('file:///etc/passwd')).toBe(false);
    expect(isExternalLink('#top')).toBe(false);
    expect(isExternalLink(null)).toBe(false);
  });
});
