// Search over every session's log (store.Search): what the sidebar's
// search box sends and gets back. Snippets come in pieces, the matched
// ones marked: plain text, drawn as text, never as markup.
import type { Hit, SearchResults as WireResults, SessionHits as WireSessionHits, SnippetPart } from './go';
import { list } from './json';

// The wire types are generated from Go (go.ts); these are the same with
// Go's nil lists as empty ones, which searchResultsOf makes them.

/** One hit: the event, its kind and where it is, and the snippet. */
export type SearchHit = Omit<Hit, 'snippet'> & { snippet: SnippetPart[] };

/** A session's hits (store.SessionHits), its list filled in. */
export type SessionHits = Omit<WireSessionHits, 'hits'> & { hits: SearchHit[] };

/** The hits of a query (store.SearchResults), its lists filled in. */
export type SearchResults = Omit<WireResults, 'sessions'> & { sessions: SessionHits[] };

/** Go's search results with their nil lists as empty ones. */
export function searchResultsOf(r: WireResults): SearchResults {
  return {
    ...r,
    sessions: list(r.sessions).map((s) => ({ ...s, hits: list(s.hits).map((h) => ({ ...h, snippet: list(h.snippet) })) })),
  };
}
