import { describe, expect, it } from 'vitest';
import { installs } from '../replay/pulls';
import { pullStep } from './ollama';

describe('pull progress from the backend', () => {
  it('names every step of a recorded pull in words, one word for all layers', () => {
    const steps = [...new Set(installs.progress.map(pullStep))];
    expect(steps).toEqual(['Reading the manifest', 'Downloading', 'Verifying', 'Finishing', 'Installed']);
  });
});
