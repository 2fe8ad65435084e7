import type { AdmissionRequest } from './types.ts';

/**
 * A second, independent decoding of a request (the server parses the body again: cheaper than
 * structuredClone), for a defaulter to change while the original stays for the patch.
 */
const copies = new WeakMap<AdmissionRequest, () => AdmissionRequest>();

export function provideCopy(req: AdmissionRequest, copy: () => AdmissionRequest): void {
  copies.set(req, copy);
}

/** The request's `object`, decoded afresh: the caller's own to change. */
export function ownObject(req: AdmissionRequest): unknown {
  const copy = copies.get(req);
  return copy ? copy().object : structuredClone(req.object);
}
