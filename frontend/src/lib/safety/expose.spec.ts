import { describe, expect, it } from 'vitest';
import { addExposePath, checkExposePath, cleanPath, isWithin, removeExposePath } from './expose';

describe('exposed paths', () => {
  it('are cleaned as filepath.Clean cleans them', () => {
    expect(cleanPath('/opt//sdk/')).toBe('/opt/sdk');
    expect(cleanPath('/opt/./sdk/../go')).toBe('/opt/go');
    expect(cleanPath('/../..')).toBe('/');
    expect(cleanPath('a/../../b')).toBe('../b');
    expect(cleanPath('')).toBe('.');
  });

  it('must be absolute and narrower than the whole file system', () => {
    expect(checkExposePath('  /opt/sdk/ ')).toEqual({ ok: true, path: '/opt/sdk' });
    expect(checkExposePath('')).toEqual({ ok: false, error: 'Type a path, or choose a folder.' });
    expect(checkExposePath('sdk')).toEqual({ ok: false, error: 'sdk: give an absolute path (starting with /).' });
    expect(checkExposePath('~/go')).toEqual({ ok: false, error: '~/go: give the full path (starting with /), not one from ~.' });
    expect(checkExposePath('/usr/..')).toEqual({ ok: false, error: '/ is the whole file system: choose the folder commands need.' });
  });

  it('are added once, and a folder takes the place of the paths inside it', () => {
    expect(addExposePath([], '/opt/sdk')).toEqual({ ok: true, paths: ['/opt/sdk'] });
    expect(addExposePath(['/opt/sdk'], '/opt/sdk/')).toEqual({ ok: false, error: '/opt/sdk is already listed.' });
    expect(addExposePath(['/opt/sdk'], '/opt/sdk/bin')).toEqual({ ok: false, error: '/opt/sdk/bin is already readable: it is inside /opt/sdk.' });
    // A sibling with a common prefix is not inside it.
    expect(addExposePath(['/opt/sdk'], '/opt/sdk2')).toEqual({ ok: true, paths: ['/opt/sdk', '/opt/sdk2'] });
    expect(addExposePath(['/opt/sdk/bin', '/data', '/opt/sdk/lib'], '/opt/sdk')).toEqual({ ok: true, paths: ['/data', '/opt/sdk'] });
    expect(addExposePath(['/data'], 'data')).toEqual({ ok: false, error: 'data: give an absolute path (starting with /).' });
  });

  it('are removed one at a time', () => {
    expect(removeExposePath(['/a', '/b', '/c'], '/b')).toEqual(['/a', '/c']);
    expect(removeExposePath(['/a'], '/x')).toEqual(['/a']);
  });

  it('say whether one path lies within another', () => {
    expect(isWithin('/a/b', '/a')).toBe(true);
    expect(isWithin('/a', '/a')).toBe(true);
    expect(isWithin('/ab', '/a')).toBe(false);
    expect(isWithin('/a', '/a/b')).toBe(false);
  });
});
