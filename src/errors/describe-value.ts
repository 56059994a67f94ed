// How a value that came from outside (a host option, a callback's answer, a thrown value) is named in a
// message. Both functions never throw: they run on values nobody has checked yet, including proxies and
// objects whose getters or `toString` throw.

/** A short description for "got …": `NaN`, `"yolo"`, `-3`, `10n`, `a function`, `an object`. */
export function describeValue(value: unknown): string {
  try {
    switch (typeof value) {
      case 'string':
        return JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);
      case 'number':
        return Object.is(value, -0) ? '-0' : String(value);
      case 'bigint':
        return `${value}n`;
      case 'boolean':
      case 'undefined':
        return String(value);
      case 'symbol':
        return 'a symbol';
      case 'function':
        return 'a function';
    }
    if (value === null) return 'null';
    return Array.isArray(value) ? 'an array' : 'an object';
  } catch {
    // Array.isArray throws on a revoked proxy.
    return 'a value that cannot be inspected';
  }
}

/**
 * The message of something thrown or rejected with, whatever it is: an Error's message, a string, an
 * object's JSON (`throw { code: 1 }`), or a description (`reject(undefined)` gives `undefined`).
 */
export function messageOf(error: unknown): string {
  try {
    if (error instanceof Error) return String(error.message);
    if (typeof error === 'string') return error;
    const message = (error as { message?: unknown } | null)?.message;
    if (typeof message === 'string') return message;
    if (typeof error === 'object' && error !== null) {
      const json = JSON.stringify(error);
      if (typeof json === 'string') return json.length > 200 ? `${json.slice(0, 200)}…` : json;
    }
  } catch {
    // A getter, a proxy trap or JSON.stringify threw: the value gets described instead.
  }
  return describeValue(error);
}
