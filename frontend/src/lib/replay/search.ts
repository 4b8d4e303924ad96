// Search in a replay: the events played so far, looked through as the
// engine's search would be asked (a substring of the payloads' text,
// ignoring case), and refused in the engine's words (store.CheckQuery).
import { BridgeError } from '../bridge/types';
import { isRecord, type SearchFilter, type SearchResults, type Summary, type TraceEvent } from '../types';

/** The hits of query among events of the session summary is of (null: none shown), at most limit. */
export function searchPlayed(query: string, filter: SearchFilter, limit: number, events: readonly TraceEvent[], summary: Summary | null): SearchResults {
  const q = query.trim();
  if (q !== '' && q.replace(/["'`\s]/g, '') === '') {
    throw new BridgeError(`search for some text: ${q} holds only quotes (the query is matched as typed, quotes included; type at least 3 characters)`, 'search');
  }
  if ([...q].length < 3) throw new BridgeError(`type at least 3 characters to search ("${q}" has ${[...q].length})`, 'search');
  const out: SearchResults = { query: q, sessions: [], more: false, order: 'best', partial: false, status: { indexed: events.length, total: events.length } };
  const s = summary;
  if (!s) return out;
  if ((filter.model && filter.model !== s.model) || (filter.workspace && filter.workspace !== s.workspace) || (filter.outcome && filter.outcome !== s.last_reason)) return out;
  const lower = q.toLowerCase();
  const hits = [];
  for (const e of events) {
    const text = payloadText(e.payload);
    const at = text.toLowerCase().indexOf(lower);
    if (at < 0) continue;
    const from = Math.max(0, at - 40);
    hits.push({
      seq: e.seq, kind: e.kind, run: e.run, round: e.round, time: e.time,
      snippet: [{ text: text.slice(from, at) }, { text: text.slice(at, at + q.length), match: true }, { text: text.slice(at + q.length, at + q.length + 60) }],
    });
    if (hits.length >= limit) break;
  }
  if (hits.length) out.sessions.push({ session_id: s.id, title: s.title, model: s.model, workspace: s.workspace, last_reason: s.last_reason, updated_at: s.updated_at, hits });
  return out;
}

/** The strings of a payload, one a line: what the replay's search looks in. */
function payloadText(v: unknown): string {
  if (typeof v === 'string') return v;
  if (Array.isArray(v)) return v.map(payloadText).filter(Boolean).join('\n');
  if (isRecord(v)) return Object.values(v).map(payloadText).filter(Boolean).join('\n');
  return '';
}
