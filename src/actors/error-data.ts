import { credentialValues } from '../core/credentials.ts';
import { ProviderError, type ProviderErrorData } from '../errors/provider-error.ts';
import { classifyError } from '../providers/classify-error.ts';
import { redactSecrets } from '../providers/secrets.ts';
import { providerErrorDataSchema } from '../session/event-data-schemas.ts';

/**
 * Any failure of a model request (a `ProviderError`, a thrown value of any kind, an `error` event
 * carrying anything) as plain data for events and the log. Never throws. The values of the environment
 * variables named like credentials (`defaultWithheldVariables`, the same names `bash` withholds) are
 * taken out of the message, so a server that echoes a key puts it neither in the log nor in a live event. (Adapters take out the key they
 * were given themselves, which need not be in the environment.)
 */
export function toErrorData(error: unknown): ProviderErrorData {
  let data: ProviderErrorData;
  try {
    data = ProviderError.isInstance(error) ? fromProviderError(error) : classifyError(error).toJSON();
  } catch {
    // A value whose fields or string form throw (a hostile proxy): nothing more can be said about it.
    data = {
      kind: 'server',
      message: 'the provider failed with a value that cannot be read',
      retryable: false,
    };
  }
  return { ...data, message: redactSecrets(data.message, credentialValues()) };
}

function fromProviderError(error: ProviderError): ProviderErrorData {
  // It may come from another copy (another version) of the package: read its fields and check them.
  const { kind, message, retryable, retryAfterMs, status } = error;
  const candidate = {
    kind,
    message,
    retryable,
    ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
    ...(status !== undefined ? { status } : {}),
  };
  const parsed = providerErrorDataSchema.safeParse(candidate);
  if (parsed.success) return parsed.data;
  const text = typeof message === 'string' ? message : 'a provider error of unknown shape';
  return { kind: 'server', message: `${text} (unrecognised provider error)`, retryable: false };
}
