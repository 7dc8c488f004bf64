// URL-valued server settings read from the environment, checked once at start. A refused value is
// not echoed: a webhook's URL often carries its token in the path or the query, and a typo in the
// scheme would otherwise print it to the terminal and the logs.

/** The setting `name` as an http(s) URL; null when unset or empty. */
export function envHttpUrl(env: NodeJS.ProcessEnv, name: string): URL | null {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '') return null;
  let url: URL | null = null;
  try {
    url = new URL(raw);
  } catch {
    // Refused below.
  }
  if (url === null || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new Error(`${name} must be an http(s) URL such as https://host/path (the value is not shown: a URL may carry a token).`);
  }
  return url;
}
