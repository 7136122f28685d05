/** The model-agnostic agent core: loop, working view, eviction index, model clients, tools. */
export * from './model';
export * from './errors';
export * from './evictionIndex';
export * from './workingView';
export * from './titles';
export * from './tools';
export * from './workspaceTools';
export * from './openaiClient';
export * from './agentLoop';
