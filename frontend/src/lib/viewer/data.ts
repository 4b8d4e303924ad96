// What a shared replay holds: the session as `loupe export --format json`
// writes it, and every request's body (session.RawBodies in Go), each in a
// <script type="application/json"> of the page (backend/viewer).
import { parseEvent, type Summary, type TraceEvent } from '../types';

/** The ids of the page's data elements (viewer.SessionID, viewer.RawID in Go). */
export const SESSION_ID = 'loupe-session';
export const RAW_ID = 'loupe-raw';

/** session.RawBodies: the pieces, and each body as the first `keep` pieces of the one before plus `add`. */
export interface RawBodies {
  pieces: string[];
  bodies: { seq: number; keep: number; add: number[]; error?: string }[];
}

/** A shared session, parsed. */
export interface Shared {
  summary: Summary;
  events: TraceEvent[];
  raw: RawBodies;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The export's JSON and the bodies' JSON, checked; throws saying what is wrong. */
export function parseShared(sessionJson: string, rawJson: string): Shared {
  const doc: unknown = JSON.parse(sessionJson);
  if (!isObject(doc) || doc['format'] !== 'loupe-session' || !isObject(doc['session']) || !Array.isArray(doc['events'])) {
    throw new Error('This file holds no Loupe session.');
  }
  const events: TraceEvent[] = [];
  for (const raw of doc['events'] as unknown[]) {
    const e = parseEvent(raw);
    if (!e) throw new Error(`An event of this file is not one Loupe writes (${JSON.stringify(raw).slice(0, 80)}).`);
    events.push(e);
  }
  const raw: unknown = JSON.parse(rawJson);
  if (!isObject(raw) || !Array.isArray(raw['pieces']) || !Array.isArray(raw['bodies'])) throw new Error('The request bodies of this file are missing.');
  return { summary: doc['session'] as unknown as Summary, events, raw: raw as unknown as RawBodies };
}

/** The shared session of the page, read from its data elements. */
export function sharedOfPage(doc: Document): Shared {
  const text = (id: string) => {
    const el = doc.getElementById(id);
    if (!el) throw new Error('This page holds no session: it is the viewer of a shared replay, written by `loupe export --format html`.');
    return el.textContent ?? '';
  };
  return parseShared(text(SESSION_ID), text(RAW_ID));
}

/**
 * Each request's body by its seq, put together when asked for: a body's
 * pieces are the ones of the request before it (its first `keep`) and its
 * own, so the bodies are rebuilt in order, keeping only the last list.
 */
export class Bodies {
  readonly #raw: RawBodies;
  readonly #at = new Map<number, number>();
  /** The list of the body last put together, and its index. */
  #list: number[] = [];
  #listAt = -1;

  constructor(raw: RawBodies) {
    this.#raw = raw;
    raw.bodies.forEach((b, i) => this.#at.set(b.seq, i));
  }

  /** The body of the request at seq; throws why there is none. */
  body(seq: number): string {
    const i = this.#at.get(seq);
    if (i == null) throw new Error(`Event ${seq} is not a request to the model.`);
    const b = this.#raw.bodies[i]!;
    if (b.error) throw new Error(b.error);
    // From the last one put together when it is earlier, else from the start.
    const from = this.#listAt >= 0 && this.#listAt <= i ? this.#listAt : -1;
    const list = from >= 0 ? this.#list : [];
    for (let k = from + 1; k <= i; k++) {
      const next = this.#raw.bodies[k]!;
      if (next.error) continue;
      list.length = Math.min(list.length, next.keep);
      for (const n of next.add) list.push(n);
    }
    this.#list = list;
    this.#listAt = i;
    return list.map((n) => this.#raw.pieces[n] ?? '').join('');
  }
}
