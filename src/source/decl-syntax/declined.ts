/**
 * Thrown by the syntax front end for a source it does not read: a shape outside its subset of
 * TypeScript, a name it cannot resolve, anything the type checker might see differently. It is not
 * an error of the user's: the caller falls back to the type checker, which reads every source (and
 * reports the errors, if there are any).
 */
export class Declined extends Error {
  constructor(where: string, reason: string) {
    super(`${where}: ${reason}`);
    this.name = 'Declined';
  }
}
