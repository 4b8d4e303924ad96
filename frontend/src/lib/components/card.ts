import type { LoopStep } from '../timeline';
import type { Expandable, RawSource } from '../types';

/**
 * The frame every timeline card shares: what Card.svelte draws around a
 * card's own content. Each card's Props extend it, take the frame with a
 * rest prop and hand it to Card whole (`<Card {...frame} kind=… title=…>`),
 * so a new frame prop is declared here once and reaches every card.
 */
export interface CardFrame {
  /** The card's id in the timeline's navigation order. */
  id: string;
  /** The event's clock time, shown in the header. */
  time?: string;
  /** The card has the keyboard focus of the timeline. */
  focused?: boolean;
  /** Shows a Raw toggle when set. */
  raw?: RawSource;
  /** Set when the card's event came cut: a line says so, with a button that fetches it whole. */
  expand?: Expandable | null;
  /** Called with the card's id when focus enters it. */
  onfocus?: (id: string) => void;
  /** The loop step this card belongs to, shown as a tag. */
  step?: LoopStep | null;
  /** Plain sentences on what happened and why (the Explain switch). */
  explain?: string;
  /** The playback position is on this card. */
  current?: boolean;
}
