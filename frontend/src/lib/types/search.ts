// Search over every session's log (store.Search): what the sidebar's
// search box sends and gets back. Snippets come in pieces, the matched
// ones marked: plain text, drawn as text, never as markup.
import type { Hit, Kind, SearchResults as WireResults, SearchStatus, SessionHits as WireSessionHits, SnippetPart } from './go';
import { isRecord } from './json';

// The wire types are generated from Go (go.ts); these are the same with
// Go's nil lists filled in as empty ones, which searchResultsOf does.

/** One hit: the event, its kind and where it is, and the snippet. */
export type SearchHit = Omit<Hit, 'snippet'> & { snippet: SnippetPart[] };

/** A session's hits (store.SessionHits), its list filled in. */
export type SessionHits = Omit<WireSessionHits, 'hits'> & { hits: SearchHit[] };

/** The hits of a query (store.SearchResults), its lists filled in. */
export type SearchResults = Omit<WireResults, 'sessions'> & { sessions: SessionHits[] };

const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/** Search results as the Go side encodes them, with nils as empty lists. */
export function searchResultsOf(v: unknown): SearchResults {
  const r = isRecord(v) ? v : {};
  const st = isRecord(r['status']) ? r['status'] : {};
  return {
    query: str(r['query']),
    more: r['more'] === true,
    order: str(r['order']),
    partial: r['partial'] === true,
    status: { indexed: num(st['indexed']), total: num(st['total']) },
    sessions: arr(r['sessions']).filter(isRecord).map((s) => ({
      session_id: str(s['session_id']),
      title: str(s['title']),
      model: str(s['model']),
      workspace: str(s['workspace']),
      last_reason: str(s['last_reason']),
      updated_at: str(s['updated_at']),
      hits: arr(s['hits']).filter(isRecord).map((h) => ({
        seq: num(h['seq']),
        kind: str(h['kind']) as Kind,
        run: num(h['run']),
        round: num(h['round']),
        time: str(h['time']),
        snippet: arr(h['snippet'])
          .filter(isRecord)
          .map((p) => (p['match'] === true ? { text: str(p['text']), match: true } : { text: str(p['text']) })),
      })),
    })),
  };
}

export function searchStatusOf(v: unknown): SearchStatus {
  const r = isRecord(v) ? v : {};
  return { indexed: num(r['indexed']), total: num(r['total']) };
}
