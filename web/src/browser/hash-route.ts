// The open session lives in the URL's hash (`#session=<id>`), so a link or a second tab opens it.
export const hashRoute = {
  read(): string | undefined {
    const match = /(?:^#|&)session=([^&]+)/.exec(window.location.hash);
    return match?.[1] === undefined ? undefined : decodeURIComponent(match[1]);
  },
  write(sessionId: string): void {
    const hash = `#session=${encodeURIComponent(sessionId)}`;
    if (window.location.hash !== hash) history.replaceState(null, "", hash);
  },
};
