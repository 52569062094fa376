import { inject } from 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The program's bundle this test run built (programBundle.ts). */
    adplaneProgram: string;
  }
}

/** The node arguments that start the adplane program with `args`: the bundle of this test run, as `npm start` runs it. */
export function programArgs(...args: string[]): string[] {
  return [inject('adplaneProgram'), ...args];
}
