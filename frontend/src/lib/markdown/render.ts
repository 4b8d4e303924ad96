// Markdown for the model's final answer: parsed by marked, then sanitised by
// DOMPurify, because the text comes from a model that read files we don't
// control. Remote images are dropped: Loupe works offline and must not
// fetch anything a model names.
import DOMPurify from 'dompurify';
import { Marked } from 'marked';

// Configuration only; it holds no state between calls.
const marked = new Marked({ gfm: true, breaks: false, async: false });

export function renderMarkdown(source: string): string {
  const html = marked.parse(source, { async: false });
  return DOMPurify.sanitize(html, {
    USE_PROFILES: { html: true },
    FORBID_TAGS: ['style', 'img', 'form', 'input', 'button', 'textarea', 'select', 'iframe', 'object', 'embed', 'svg', 'math'],
    FORBID_ATTR: ['style', 'srcset'],
  });
}

/** Links Loupe will hand to the system browser; anything else is ignored. */
export function isExternalLink(href: string | null | undefined): href is string {
  return typeof href === 'string' && /^(https?:|mailto:)/i.test(href);
}
