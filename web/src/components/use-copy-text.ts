// Copies text to the clipboard and says so for a moment ("copied", or "copy failed" where the
// page may not use the clipboard: not a secure origin, or permission refused).
import { useEffect, useState } from "preact/hooks";

const SHOWN_MS = 1500;

export function useCopyText(): {
  copied: "copied" | "failed" | undefined;
  copy: (text: string) => void;
} {
  const [copied, setCopied] = useState<"copied" | "failed" | undefined>(undefined);
  useEffect(() => {
    if (copied === undefined) return;
    const timer = setTimeout(() => setCopied(undefined), SHOWN_MS);
    return () => clearTimeout(timer);
  }, [copied]);
  return {
    copied,
    copy(text) {
      const clipboard = navigator.clipboard as Clipboard | undefined;
      if (clipboard === undefined) return setCopied("failed");
      clipboard.writeText(text).then(
        () => setCopied("copied"),
        () => setCopied("failed"),
      );
    },
  };
}
