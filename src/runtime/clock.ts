/** Time as the runtime sees it: the clock lives in shared/ (the client's retries use it too). */
export { realClock, FakeClock, type Clock, type TimerHandle } from '../shared/clock.ts';
