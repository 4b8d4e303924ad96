// Markdown for the model's final answer: parsed by marked, then sanitised by
// DOMPurify, because the text comes from a model that read files we don't
// control. Remote images are dropped: Loupe works offline and must not
// fetch anything a model names.
import DOMPurify from 'dompurify';
import { Marked } from 'marked';
import { visible } from '../timeline/visible';

// Configuration only; it holds no state between calls.
const marked = new Marked({ gfm: true, breaks: false, async: false });

export function renderMarkdown(source: string): string {
  // Escaped before parsing too: marked reads a lone carriage return as a
  // line break, which would hide it.
  const html = marked.parse(visible(source), { async: false });
  const page = DOMPurify.sanitize(html, {
    USE_PROFILES: { html: true },
    FORBID_TAGS: ['style', 'img', 'form', 'input', 'button', 'textarea', 'select', 'iframe', 'object', 'embed', 'svg', 'math'],
    FORBID_ATTR: ['style', 'srcset'],
    RETURN_DOM_FRAGMENT: true,
  });
  // Control characters shown, not obeyed (see timeline/visible): in the
  // text as parsed, so that one written as an entity (&#x202e;) is caught
  // too.
  const walk = document.createTreeWalker(page, NodeFilter.SHOW_TEXT);
  for (let n = walk.nextNode(); n; n = walk.nextNode()) {
    const text = n.nodeValue ?? '';
    const shown = visible(text);
    if (shown !== text) n.nodeValue = shown;
  }
  const box = document.createElement('div');
  box.appendChild(page);
  return box.innerHTML;
}

/** Links Loupe will hand to the system browser; anything else is ignored. */
export function isExternalLink(href: string | null | undefined): href is string {
  return typeof href === 'string' && /^(https?:|mailto:)/i.test(href);
}
