export * from './kernel';
export * from './subprocessKernel';
export * from './loggedKernel';
export { kernelEnvironment, findKernelDir, isAllowedVariable } from './environment';
