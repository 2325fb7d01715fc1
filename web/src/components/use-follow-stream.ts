// Keeps the conversation's end in view while it grows, unless the user scrolled up; then the view
// stays where they put it and `following` is false (the page offers a jump back to the end).
import type { RefObject } from "preact";
import { useLayoutEffect, useRef, useState } from "preact/hooks";
import { followAfterScroll, type FollowState } from "../state/scroll-follow.ts";

export interface FollowStream {
  scroller: RefObject<HTMLDivElement>;
  following: boolean;
  onScroll: () => void;
  onWheel: (event: WheelEvent) => void;
  jumpToEnd: () => void;
}

/** `sessionId`: a different session starts at its end, following. */
export function useFollowStream(sessionId: string | undefined): FollowStream {
  const scroller = useRef<HTMLDivElement>(null);
  const follow = useRef<FollowState>({ following: true, lastTop: 0 });
  const [following, setFollowing] = useState(true);
  const change = (next: FollowState): void => {
    follow.current = next;
    setFollowing(next.following);
  };
  const scrollToEnd = (): void => {
    const element = scroller.current;
    if (element === null) return;
    element.scrollTop = element.scrollHeight;
    follow.current = { ...follow.current, lastTop: element.scrollTop };
  };

  useLayoutEffect(() => change({ following: true, lastTop: 0 }), [sessionId]);
  // After every render (new output), before the browser paints: no frame shows the end cut off.
  useLayoutEffect(() => {
    if (follow.current.following) scrollToEnd();
  });

  return {
    scroller,
    following,
    onScroll() {
      const element = scroller.current;
      if (element !== null) change(followAfterScroll(follow.current, element));
    },
    onWheel(event) {
      // Upward intent counts at once, before the scroll it causes lands in a frame.
      const element = scroller.current;
      if (event.deltaY < 0 && element !== null && element.scrollHeight > element.clientHeight) {
        change({ ...follow.current, following: false });
      }
    },
    jumpToEnd() {
      change({ ...follow.current, following: true });
      scrollToEnd();
    },
  };
}
