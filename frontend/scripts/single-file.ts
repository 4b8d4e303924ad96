// A Vite plugin for the shared replay's page: everything the build emits
// for it (one script, one stylesheet, any asset) is put inside the HTML, so
// the page opens from disk and fetches nothing (backend/viewer gives it a
// policy that forbids every fetch and names the inline script and style by
// their hashes).
import type { Plugin } from 'vite';

/**
 * Script text that can sit inside a <script> element: `</script` would end
 * it and `<!--` change how it is parsed. Both can only be inside a string,
 * template or regular expression of the bundle, where \x3c is the same "<".
 */
export function scriptText(js: string): string {
  return js.replace(/<(\/script|!--)/gi, '\\x3c$1');
}

export function singleFile(page: string): Plugin {
  return {
    name: 'loupe-single-file',
    enforce: 'post',
    generateBundle(_options, bundle) {
      const html = bundle[page];
      if (!html || html.type !== 'asset') throw new Error(`single-file: the build has no ${page}`);
      let text = String(html.source);
      for (const [name, out] of Object.entries(bundle)) {
        if (name === page) continue;
        const ref = (attr: string) => new RegExp(`<(script|link)([^>]*?)\\s${attr}="[^"]*${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}"([^>]*)>(</script>)?`);
        if (out.type === 'chunk') {
          const m = text.match(ref('src'));
          if (!m) throw new Error(`single-file: ${page} does not load ${name}`);
          // A lazy import inlined into the one chunk keeps Vite's
          // placeholder for the files to preload with it: there are none.
          const code = out.code.replaceAll('__VITE_PRELOAD__', 'void 0');
          text = text.replace(m[0], () => `<script type="module">${scriptText(code)}</script>`);
        } else if (name.endsWith('.css')) {
          const m = text.match(ref('href'));
          if (!m) throw new Error(`single-file: ${page} does not load ${name}`);
          text = text.replace(m[0], () => `<style>${String(out.source).replace(/<\/style/gi, '\\3c/style')}</style>`);
        } else {
          throw new Error(`single-file: ${name} would be a file of its own; raise build.assetsInlineLimit`);
        }
        delete bundle[name];
      }
      html.source = text;
    },
  };
}
