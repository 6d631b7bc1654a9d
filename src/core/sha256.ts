/**
 * SHA-256 as hex, the content address of workflows, datasets and result files: a link that names
 * a dataset by it is checked against the file the user gives, which a 64-bit mixing hash could not
 * promise against a forged file. @noble/hashes: audited, synchronous, the same in page, worker and
 * Node. Pure.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';

/** SHA-256 of bytes, or of text as UTF-8, in lower-case hex. */
export function sha256Hex(data: Uint8Array | string): string {
  return bytesToHex(sha256(typeof data === 'string' ? new TextEncoder().encode(data) : data));
}
