// Search over every session's log (store.Search): what the sidebar's
// search box sends and gets back. Snippets come in pieces, the matched
// ones marked: plain text, drawn as text, never as markup.
import type { Kind } from './events';
import { isRecord } from './json';

/** Narrows a search; an absent field does not. */
export interface SearchFilter {
  model?: string;
  workspace?: string;
  /** The reason the session's last run ended (last_reason). */
  outcome?: string;
  /** When the matching event was written: from <= time < to (RFC 3339). */
  from?: string;
  to?: string;
}

export interface SnippetPart {
  text: string;
  match?: boolean;
}

export interface SearchHit {
  seq: number;
  kind: Kind;
  run: number;
  round: number;
  time: string;
  snippet: SnippetPart[];
}

export interface SessionHits {
  session_id: string;
  title: string;
  model: string;
  workspace: string;
  last_reason: string;
  updated_at: string;
  hits: SearchHit[];
}

/** How many events search covers while older ones are indexed. */
export interface SearchStatus {
  indexed: number;
  total: number;
}

export interface SearchResults {
  query: string;
  sessions: SessionHits[];
  /** More hits than asked for. */
  more: boolean;
  order: 'best' | 'newest' | string;
  /** Older events are still being indexed: some hits may be missing. */
  partial: boolean;
  status: SearchStatus;
}

/** A delete the user can take back until `until`. */
export interface PendingDelete {
  session: string;
  until: string;
}

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
