/** The workspace tools' confinement rule and the file operations behind it (no `vscode`). */
export * from './confine';
export * from './patterns';
export * from './walk';
export * from './files';
export * from './fileTools';
