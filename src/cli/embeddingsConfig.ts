/**
 * The embeddings endpoint of the CLI's optional hybrid search (`scroll embed`, `scroll search
 * --hybrid`): flags, else environment variables. The API key is read from the environment variable
 * `--embeddings-key-env` names, never passed as a flag (it would sit in the shell's history and `ps`).
 */
import { EmbeddingClient } from '../core/search/embeddingClient';
import { UsageError, stringOption, type CommandContext, type OptionSpec } from './command';

export const EMBEDDINGS_OPTIONS: OptionSpec = {
  'embeddings-url': { type: 'string' },
  'embeddings-model': { type: 'string' },
  'embeddings-key-env': { type: 'string' },
};

export const EMBEDDINGS_USAGE = `embeddings endpoint (OpenAI-compatible POST /v1/embeddings: Ollama, llama.cpp, vLLM, LM Studio);
it is sent the stored (redacted) text of every event:
  --embeddings-url URL      base URL, e.g. http://127.0.0.1:11434/v1      (env SCROLL_EMBEDDINGS_URL)
  --embeddings-model NAME   e.g. nomic-embed-text                         (env SCROLL_EMBEDDINGS_MODEL)
  --embeddings-key-env VAR  environment variable holding the API key, if the server wants one
                                                                          (env SCROLL_EMBEDDINGS_KEY_ENV)`;

/** The configured client; a clear usage error when the endpoint or the model is missing. */
export function embeddingClientFrom(ctx: CommandContext, what: string): EmbeddingClient {
  const env = ctx.io.env;
  const url = stringOption(ctx.values, 'embeddings-url') ?? env.SCROLL_EMBEDDINGS_URL;
  const model = stringOption(ctx.values, 'embeddings-model') ?? env.SCROLL_EMBEDDINGS_MODEL;
  const keyEnv = stringOption(ctx.values, 'embeddings-key-env') ?? env.SCROLL_EMBEDDINGS_KEY_ENV;
  if (!url) throw new UsageError(`${what} needs an embeddings endpoint: --embeddings-url URL (or SCROLL_EMBEDDINGS_URL), e.g. http://127.0.0.1:11434/v1`);
  if (!model) throw new UsageError(`${what} needs an embeddings model: --embeddings-model NAME (or SCROLL_EMBEDDINGS_MODEL), e.g. nomic-embed-text`);
  let apiKey: string | undefined;
  if (keyEnv) {
    apiKey = env[keyEnv];
    if (!apiKey) throw new UsageError(`environment variable ${keyEnv} is not set; it should hold the API key for ${url}`);
  }
  try {
    return new EmbeddingClient({ endpoint: url, model, apiKey });
  } catch (e) {
    throw new UsageError(e instanceof Error ? e.message : String(e));
  }
}
