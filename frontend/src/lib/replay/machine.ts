// What the machine around a replayed session looks like: Ollama's state,
// the installed models and the OS protections commands get. None of it is
// the engine's behaviour and all of it differs by machine, so recordings
// leave it out; specs and the demo choose it. What Go judges of a machine
// (its protections, a rule, the tools) comes from judgements.json, which a
// Go test writes (go test . -run TestWindowJudgements -update).
import { cleanRule } from '../safety/rules';
import type { ModelInfo, Protections, Rule, RuleCheck, StatusInfo, ToolInfo } from '../types';
import judgements from './judgements.json';

export const reachableStatus: StatusInfo = {
  ollama_host: 'http://127.0.0.1:11434',
  hosts: { host: 'http://127.0.0.1:11434', from: 'default', flag: '', env: '' },
  reachable: true,
  version: '0.13.0',
  message: '',
  db_path: '/home/me/.local/share/loupe/loupe.db',
  db_error: '',
  // Nothing known of this machine's Ollama (a spec that needs it says so).
  local: {
    on_this_machine: false,
    installed: false,
    binary: '',
    binary_version: '',
    started_by_loupe: false,
    log_path: '',
    install: '',
    install_url: '',
    last_error: '',
  },
};

/** The model the recordings ran with, and two more: one without tools, one that thinks. */
export const models: ModelInfo[] = [
  {
    name: 'qwen3:0.6b',
    size: 522_653_767,
    family: 'qwen3',
    parameter_size: '751.63M',
    quantization: 'Q4_K_M',
    capabilities: ['completion', 'tools'],
    context_length: 40960,
    modified_at: '2026-01-02T09:00:00Z',
  },
  {
    name: 'llama3.2:1b',
    size: 1_321_098_329,
    family: 'llama',
    parameter_size: '1.2B',
    quantization: 'Q8_0',
    capabilities: ['completion', 'tools', 'thinking'],
    context_length: 131072,
    modified_at: '2026-01-01T09:00:00Z',
  },
  {
    name: 'gemma3:1b',
    size: 815_319_791,
    family: 'gemma3',
    parameter_size: '999.89M',
    quantization: 'Q4_K_M',
    capabilities: ['completion'],
    context_length: 32768,
    modified_at: '2025-12-20T09:00:00Z',
  },
];

/** The machines Go judged (window_judgements_test.go), by name. */
export type MachineName = keyof typeof judgements.machines;

/** What a machine's probe found and what the policy makes of it, as App.Protections answers there. */
export function machineProtections(name: MachineName): Protections {
  return structuredClone(judgements.machines[name]) as Protections;
}

/** A Linux machine with Landlock ABI 6 and user namespaces: every protection. */
export function sandboxedProtections(): Protections {
  return machineProtections('sandboxed');
}

/** A kernel without Landlock or user namespaces: nothing confines commands. */
export function unconfinedProtections(): Protections {
  return machineProtections('unconfined');
}

/** The built-in tools, as App.Tools lists them. */
export const builtinTools: readonly ToolInfo[] = judgements.tools;

/** How Go judges a rule (App.CheckRule), for the rules the specs and the demo show; undefined for one Go was not asked about. */
export function recordedRuleCheck(rule: Rule): RuleCheck | undefined {
  const key = JSON.stringify(cleanRule(rule));
  return judgements.rules.find((r) => JSON.stringify(cleanRule(r.rule as Rule)) === key)?.check;
}
