export * from './json';
export * from './go';
export * from './events';
export * from './app';
export * from './raw';
export * from './safety';
export * from './ollama';
