// Whether the conversation keeps its end in view as it grows. Only the user scrolling up stops
// it: content growing under a scroll event, or the browser clamping scrollTop when content
// shrinks, never does (the check once compared distances and lost the stream after a burst).

export interface ScrollPosition {
  scrollTop: number;
  scrollHeight: number;
  clientHeight: number;
}

export interface FollowState {
  following: boolean;
  /** scrollTop at the last scroll event, to tell the user's upward scroll apart. */
  lastTop: number;
}

/** Within this many pixels of the end counts as at the end. */
export const END_SLACK_PX = 40;

export function isAtEnd(position: ScrollPosition): boolean {
  return position.scrollHeight - position.scrollTop - position.clientHeight < END_SLACK_PX;
}

export function followAfterScroll(state: FollowState, position: ScrollPosition): FollowState {
  if (isAtEnd(position)) return { following: true, lastTop: position.scrollTop };
  const scrolledUp = position.scrollTop < state.lastTop - 1;
  return { following: state.following && !scrolledUp, lastTop: position.scrollTop };
}
