/**
 * Both drivers bind only null, numbers, bigints, strings and byte arrays. We accept `undefined`
 * (→ NULL) and booleans (→ 0/1) as well, so call sites need not care which driver runs.
 */
export function normalizeParams(params: unknown[]): unknown[] {
  for (let i = 0; i < params.length; i++) {
    const p = params[i];
    if (p === undefined || typeof p === 'boolean') {
      params[i] = p === undefined ? null : p ? 1 : 0;
    } else if (p !== null && typeof p === 'object' && !ArrayBuffer.isView(p)) {
      params[i] = normalizeNamed(p as Record<string, unknown>);
    }
  }
  return params;
}

function normalizeNamed(obj: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) out[k] = v === undefined ? null : typeof v === 'boolean' ? (v ? 1 : 0) : v;
  return out;
}
