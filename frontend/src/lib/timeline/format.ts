// Small text helpers shared by the cards.
import { isRecord, type JsonValue } from '../types';

/** Pretty JSON; a string that holds JSON is parsed first. */
export function prettyJson(v: unknown): string {
  if (typeof v === 'string') {
    try {
      return JSON.stringify(JSON.parse(v), null, 2);
    } catch {
      // Not JSON: show it as it is.
      return v;
    }
  }
  return JSON.stringify(v ?? null, null, 2) ?? 'null';
}

/** The one argument that says most about a call, for its header. */
export function argSummary(name: string, args: JsonValue | undefined): string {
  if (!isRecord(args)) return '';
  const pick = (k: string) => (typeof args[k] === 'string' ? (args[k] as string) : '');
  switch (name) {
    case 'run_command':
      return pick('command');
    case 'glob':
      return pick('pattern');
    case 'grep':
      return [pick('pattern'), pick('path')].filter(Boolean).join(' in ');
    default:
      return pick('path') || pick('pattern') || pick('command') || pick('prompt');
  }
}

// Formatters are costly to create and immutable once made: one of each.
const clockFormat = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' });
const dateFormat = new Intl.DateTimeFormat(undefined, { year: 'numeric', month: 'short', day: 'numeric' });

/** "10:04:05" in the user's locale and time zone; "" for a missing time. */
export function formatClock(iso: string): string {
  const t = Date.parse(iso);
  if (!Number.isFinite(t)) return '';
  return clockFormat.format(t);
}

/** "5 min ago", "yesterday", or a date. */
export function formatWhen(iso: string, now = Date.now()): string {
  const t = Date.parse(iso);
  if (!Number.isFinite(t)) return '';
  const s = Math.max(0, Math.round((now - t) / 1000));
  if (s < 45) return 'just now';
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  if (s < 86400) return `${Math.round(s / 3600)} h ago`;
  if (s < 2 * 86400) return 'yesterday';
  return dateFormat.format(t);
}

/** The last folder of a path, for compact display. */
export function baseName(path: string): string {
  const parts = path.split(/[\\/]+/).filter(Boolean);
  return parts[parts.length - 1] ?? path;
}

/** An observation's error kinds (trace.ErrorKind) in words. */
export const ERROR_KIND_TEXT: Readonly<Record<string, string>> = {
  unknown_tool: 'unknown tool',
  invalid_args: 'invalid arguments',
  failed: 'tool failed',
  denied: 'denied',
  cancelled: 'cancelled',
  interrupted: 'interrupted',
  skipped: 'skipped',
  stopped: 'stopped',
};

/**
 * The badge of a failed call's observation: "Error: " and its kind in
 * words, or just "Error" when the kind says no more than that (none, or
 * "error" itself), never "Error: error".
 */
export function errorBadge(kind: string | null | undefined): string {
  const k = (kind ?? '').trim();
  if (k === '' || k.toLowerCase() === 'error') return 'Error';
  return `Error: ${ERROR_KIND_TEXT[k] ?? k.replace(/_/g, ' ')}`;
}
