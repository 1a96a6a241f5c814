//! Helpers shared by the fs backend's test files.

/// Polls a future that never waits on I/O readiness (no runtime is needed) to the end.
pub fn poll_to_completion<F: std::future::Future>(future: F) -> F::Output {
    use std::task::{Context, Poll, Waker};
    let mut future = std::pin::pin!(future);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(value) = future.as_mut().poll(&mut cx) {
            return value;
        }
    }
}
