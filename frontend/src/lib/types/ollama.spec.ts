import { describe, expect, it } from 'vitest';
import { installs } from '../replay/pulls';
import { pullProgressOf, pullStep } from './ollama';

describe('pull progress from the backend', () => {
  it('reads what the Go client sends, and drops what is not a progress', () => {
    const p = pullProgressOf({ model: 'qwen3', status: 'pulling 5341da5505b0', completed: 10, total: 40, percent: 25, done: false });
    expect(p).toEqual({ model: 'qwen3', status: 'pulling 5341da5505b0', completed: 10, total: 40, percent: 25, done: false });
    expect(pullProgressOf({ status: 'x' })).toBeNull();
    expect(pullProgressOf('qwen3')).toBeNull();
    expect(pullProgressOf({ model: 'm', status: 's', percent: 250 })!.percent).toBe(100);
  });

  it('names every step of a recorded pull in words, one word for all layers', () => {
    const steps = [...new Set(installs.progress.map(pullStep))];
    expect(steps).toEqual(['Reading the manifest', 'Downloading', 'Verifying', 'Finishing', 'Installed']);
  });
});
