// The built-in demo model (backend/demo) as the window names it. It is a
// script, not a model: wherever a model's name is shown, the demo's label
// says so.
import type { ModelInfo } from '../types';

/** backend/demo.Name: the model name the engine gives the demo's sessions and requests. */
export const DEMO_MODEL = 'demo';
/** backend/demo.Label: how the demo is named wherever a person sees it. */
export const DEMO_LABEL = 'Demo (scripted, no AI)';

export function isDemoModel(name: string | null | undefined): boolean {
  return name === DEMO_MODEL;
}

/** A model's name as shown: the demo's label for the demo, the name otherwise. */
export function modelLabel(name: string): string {
  return isDemoModel(name) ? DEMO_LABEL : name;
}

/**
 * The demo as a choice of the model picker, offered whether or not Ollama
 * answers. What it can do is the engine's (session.demoInfo); the picker
 * shows only that it uses tools.
 */
export const DEMO_MODEL_INFO: ModelInfo = {
  name: DEMO_MODEL,
  size: 0,
  family: 'scripted',
  parameter_size: '',
  quantization: '',
  capabilities: ['completion', 'tools'],
  context_length: 8192,
  modified_at: '',
};

/** Ollama's models with the demo after them: the demo is always there to pick. */
export function withDemo(models: readonly ModelInfo[]): ModelInfo[] {
  return models.some((m) => isDemoModel(m.name)) ? [...models] : [...models, DEMO_MODEL_INFO];
}
