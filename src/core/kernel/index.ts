export * from './kernel';
export * from './subprocessKernel';
export * from './loggedKernel';
export { kernelEnvironment, commandEnvironment, findKernelDir, isAllowedVariable } from './environment';
