// Editing the paths a workspace's commands may also read ("exposed"
// paths: a toolchain under the home folder, a shared data set). The page
// catches what it can before saving; the backend checks every path again
// (it must exist, and must not be or hold the home folder or Loupe's data
// folder) and says why when it refuses.

/** filepath.Clean for a slash-separated path: no repeated or trailing slashes, no "." or ".." parts. */
export function cleanPath(p: string): string {
  const abs = p.startsWith('/');
  const out: string[] = [];
  for (const part of p.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (out.length > 0 && out.at(-1) !== '..') out.pop();
      else if (!abs) out.push('..');
      continue;
    }
    out.push(part);
  }
  const s = out.join('/');
  if (abs) return `/${s}`;
  return s || '.';
}

/** Whether p is dir or lies under it (both clean and absolute). */
export function isWithin(p: string, dir: string): boolean {
  return p === dir || dir === '/' || p.startsWith(`${dir}/`);
}

/** A path as the backend will keep it, or why it cannot be added. */
export type ExposeCheck = { ok: true; path: string } | { ok: false; error: string };

/** Checks one typed (or picked) path: absolute, cleaned, and not the whole file system. */
export function checkExposePath(input: string): ExposeCheck {
  const raw = input.trim();
  if (raw === '') return { ok: false, error: 'Type a path, or choose a folder.' };
  if (raw.startsWith('~')) return { ok: false, error: `${raw}: give the full path (starting with /), not one from ~.` };
  if (!raw.startsWith('/')) return { ok: false, error: `${raw}: give an absolute path (starting with /).` };
  const path = cleanPath(raw);
  if (path === '/') return { ok: false, error: '/ is the whole file system: choose the folder commands need.' };
  return { ok: true, path };
}

/** The list after adding a path, or why it is not added. */
export type ExposeEdit = { ok: true; paths: string[] } | { ok: false; error: string };

/**
 * Adds a path to the list. A path already readable (listed, or inside a
 * listed folder) is not added twice; a folder that holds listed paths
 * takes their place, since it covers them.
 */
export function addExposePath(list: readonly string[], input: string): ExposeEdit {
  const c = checkExposePath(input);
  if (!c.ok) return c;
  const covering = list.find((q) => isWithin(c.path, q));
  if (covering === c.path) return { ok: false, error: `${c.path} is already listed.` };
  if (covering) return { ok: false, error: `${c.path} is already readable: it is inside ${covering}.` };
  return { ok: true, paths: [...list.filter((q) => !isWithin(q, c.path)), c.path] };
}

/** The list without one path. */
export function removeExposePath(list: readonly string[], path: string): string[] {
  return list.filter((q) => q !== path);
}
