import { describe, expect, it } from 'vitest';
import { DEMO_LABEL, DEMO_MODEL, DEMO_MODEL_INFO, isDemoModel, modelLabel, withDemo } from './models';

// What the engine writes for the demo: the golden log of `loupe run --model demo`.
const golden = import.meta.glob<unknown>('../../../../backend/cli/testdata/golden/demo.json', { eager: true, import: 'default' });

describe('the demo model', () => {
  it('is named as the engine names it', () => {
    const events = Object.values(golden)[0] as { kind: string; payload: { model?: string } }[];
    const req = events.find((e) => e.kind === 'model_request');
    expect(req?.payload.model).toBe(DEMO_MODEL);
  });

  it('is labelled as scripted wherever a model is named', () => {
    expect(modelLabel(DEMO_MODEL)).toBe(DEMO_LABEL);
    expect(DEMO_LABEL).toContain('scripted, no AI');
    expect(modelLabel('qwen3:0.6b')).toBe('qwen3:0.6b');
    // Ollama names its models with a tag: "demo:latest" is someone's model.
    expect(isDemoModel('demo:latest')).toBe(false);
  });

  it('comes after Ollama’s models, once', () => {
    const qwen = { ...DEMO_MODEL_INFO, name: 'qwen3:0.6b', family: 'qwen3' };
    expect(withDemo([qwen]).map((m) => m.name)).toEqual(['qwen3:0.6b', 'demo']);
    expect(withDemo([]).map((m) => m.name)).toEqual(['demo']);
    expect(withDemo([qwen, DEMO_MODEL_INFO]).map((m) => m.name)).toEqual(['qwen3:0.6b', 'demo']);
  });
});
