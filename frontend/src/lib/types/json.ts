/** Any value JSON can carry. json.RawMessage fields arrive as these. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A list Go may send as null (a nil slice) or leave out (omitempty), as a list. */
export function list<T>(v: readonly T[] | null | undefined): T[] {
  return v ? [...v] : [];
}
