// One render per animation frame; a hidden tab gets no frames, so it renders on a timer instead
// (a second tab on the same session still keeps up, only less often).
export function scheduleFrame(callback: () => void): void {
  if (document.visibilityState === "hidden") setTimeout(callback, 100);
  else requestAnimationFrame(() => callback());
}
