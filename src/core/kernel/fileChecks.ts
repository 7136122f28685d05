/** Small file-system questions the sandbox builders (bubblewrap and Seatbelt) both ask; each answers false for a path that is not there. */
import { accessSync, constants, statSync } from 'node:fs';

export function isExecutable(p: string): boolean {
  try {
    accessSync(p, constants.X_OK);
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

export function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

export function isFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}
