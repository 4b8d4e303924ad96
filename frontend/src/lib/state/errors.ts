/** What an error says, for a toast or a line under a control. */
export function message(e: unknown): string {
  if (e instanceof Error) return e.message;
  return typeof e === 'string' ? e : 'Something went wrong.';
}
