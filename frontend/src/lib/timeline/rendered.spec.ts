import { describe, expect, it } from 'vitest';
import { markupCounts, shortDigest, splitPrompt } from './rendered';

describe('splitPrompt', () => {
  it('marks the template markup and keeps every character', () => {
    const text = '<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n<tool_call>\n{"name": "list_dir"}\n</tool_call><|im_end|>\n';
    const pieces = splitPrompt(text);
    expect(pieces.map((p) => p.text).join('')).toBe(text);
    expect(pieces.filter((p) => p.markup).map((p) => p.text)).toEqual(['<|im_start|>', '<|im_end|>', '<|im_start|>', '<tool_call>', '</tool_call>', '<|im_end|>']);
    expect(markupCounts(pieces)[0]).toEqual({ token: '<|im_end|>', count: 2 });
  });

  it('knows the other families of templates', () => {
    const marks = (t: string) => splitPrompt(t).filter((p) => p.markup).map((p) => p.text);
    expect(marks('<s>[INST] hi [/INST]')).toEqual(['<s>', '[INST]', '[/INST]']);
    expect(marks('<start_of_turn>user\nhi<end_of_turn>')).toEqual(['<start_of_turn>', '<end_of_turn>']);
    expect(marks('<|start_header_id|>user<|end_header_id|>')).toEqual(['<|start_header_id|>', '<|end_header_id|>']);
    // Comparisons and ordinary angle brackets are text.
    expect(marks('if a < b && c > d { return <T> }')).toEqual([]);
  });

  it('leaves a prompt without markup whole', () => {
    expect(splitPrompt('plain')).toEqual([{ text: 'plain', markup: false }]);
    expect(splitPrompt('')).toEqual([]);
  });
});

describe('shortDigest', () => {
  it('shows the first 12 characters, as ollama list does', () => {
    expect(shortDigest('sha256:514cf42a1ceb1dee40909507')).toBe('514cf42a1ceb');
    expect(shortDigest(undefined)).toBe('');
  });
});
