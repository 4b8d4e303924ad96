// Mirrors of backend/llm (llm.go). Field names are the Go json tags.
import type { JsonValue } from './json';

/** A Go time.Duration encoded by encoding/json: an integer of nanoseconds. */
export type Nanoseconds = number;

/** llm.ToolCall: one call the model asked for; args is the raw JSON object it wrote. */
export interface LlmToolCall {
  id: string;
  index: number;
  name: string;
  args: JsonValue;
}

/** llm.ToolSpec. parameters is a JSON schema object. */
export interface ToolSpec {
  name: string;
  description: string;
  parameters: JsonValue;
}

/** llm.Options: generation options set on every request. */
export interface Options {
  num_ctx: number;
  temperature: number;
}

/** llm.Metrics: timings and counts Ollama reports with the last chunk. */
export interface Metrics {
  prompt_eval_count: number;
  eval_count: number;
  total_duration: Nanoseconds;
  load_duration: Nanoseconds;
  prompt_eval_duration: Nanoseconds;
  eval_duration: Nanoseconds;
  /** Measured by Loupe: request sent to first delta. */
  time_to_first_token: Nanoseconds;
}
