//! The event-driven protocol endpoint and the handle it uses to act.

use crate::id::{NodeId, TimerId};
use crate::time::SimTime;
use crate::wire::WireSize;
use std::sync::Arc;
use std::time::Duration;

/// One protocol party, driven by events.
///
/// The simulator owns one value per node and calls exactly one handler at a time:
/// [`start`](Process::start) once when the node boots, then
/// [`on_message`](Process::on_message) for every delivered message and
/// [`on_timer`](Process::on_timer) for every timer that fires. Handlers act only through
/// the [`Context`]: sending, setting timers, reading the clock and their own id. After every
/// handler the simulator calls [`take_output`](Process::take_output) and records any
/// result with the (simulated) time at which the handler finished.
///
/// This is the same contract a production transport fulfils, so a protocol written
/// sans-I/O — pure round functions over messages — is simulated by a thin adapter that
/// feeds received messages into those functions and forwards what they return. See the
/// crate-level example and [`Lockstep`](crate::rounds::Lockstep) for a generic adapter.
///
/// Handlers should not block or sleep: the simulator measures their running time and,
/// depending on the [`ComputeModel`](crate::ComputeModel), charges it to the node's
/// simulated CPU.
pub trait Process {
    /// The wire message. Its [`WireSize`] drives the bandwidth model and byte counters.
    type Message: Clone + WireSize;
    /// What the node produces (a signature, a key share, an abort with blame…).
    type Output;

    /// Called once when the node boots (time zero for every online node).
    fn start(&mut self, ctx: &mut Context<'_, Self::Message>);

    /// Called when `msg` from `from` has been fully received.
    fn on_message(
        &mut self,
        from: NodeId,
        msg: Self::Message,
        ctx: &mut Context<'_, Self::Message>,
    );

    /// Called when a timer set with [`Context::set_timer`] fires. The default ignores it.
    fn on_timer(&mut self, timer: TimerId, ctx: &mut Context<'_, Self::Message>) {
        let _ = (timer, ctx);
    }

    /// Hands over a result produced by the last handler, if any. Called after every
    /// handler; return `Some` once per result.
    fn take_output(&mut self) -> Option<Self::Output>;
}

impl<P: Process + ?Sized> Process for Box<P> {
    type Message = P::Message;
    type Output = P::Output;

    fn start(&mut self, ctx: &mut Context<'_, Self::Message>) {
        (**self).start(ctx)
    }

    fn on_message(
        &mut self,
        from: NodeId,
        msg: Self::Message,
        ctx: &mut Context<'_, Self::Message>,
    ) {
        (**self).on_message(from, msg, ctx)
    }

    fn on_timer(&mut self, timer: TimerId, ctx: &mut Context<'_, Self::Message>) {
        (**self).on_timer(timer, ctx)
    }

    fn take_output(&mut self) -> Option<Self::Output> {
        (**self).take_output()
    }
}

/// Where an outbound message goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Dest {
    /// One node.
    One(NodeId),
    /// Every node except the sender.
    AllOthers,
}

/// A timer request recorded by a handler.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TimerCmd {
    /// Fire `TimerId` after the delay (measured from the end of the handler).
    Set(Duration, TimerId),
    /// Cancel every pending timer of this node with this id.
    Cancel(TimerId),
}

/// What a handler can see and do. Everything it sends or schedules takes effect when the
/// handler returns (see the [`notes`](crate::notes) on timing).
pub struct Context<'a, M> {
    id: NodeId,
    now: SimTime,
    num_nodes: u32,
    outbox: &'a mut Vec<(Dest, Arc<M>)>,
    timers: &'a mut Vec<TimerCmd>,
}

impl<'a, M> Context<'a, M> {
    pub(crate) fn new(
        id: NodeId,
        now: SimTime,
        num_nodes: u32,
        outbox: &'a mut Vec<(Dest, Arc<M>)>,
        timers: &'a mut Vec<TimerCmd>,
    ) -> Self {
        Context {
            id,
            now,
            num_nodes,
            outbox,
            timers,
        }
    }

    /// This node's id.
    pub fn id(&self) -> NodeId {
        self.id
    }

    /// The simulated time at which this handler started.
    pub fn now(&self) -> SimTime {
        self.now
    }

    /// The number of nodes in the simulation (ids `0..num_nodes`).
    pub fn num_nodes(&self) -> u32 {
        self.num_nodes
    }

    /// Sends `msg` to `to`. Messages to ids outside the simulation are dropped and counted
    /// as misaddressed; a message to oneself is delivered without network delay.
    pub fn send(&mut self, to: NodeId, msg: M) {
        self.outbox.push((Dest::One(to), Arc::new(msg)));
    }

    /// Sends the same `msg` to every node in `to` (one copy per recipient on the wire; the
    /// simulator shares the value in memory).
    pub fn multicast<I>(&mut self, to: I, msg: M)
    where
        I: IntoIterator<Item = NodeId>,
    {
        let msg = Arc::new(msg);
        for node in to {
            self.outbox.push((Dest::One(node), Arc::clone(&msg)));
        }
    }

    /// Sends `msg` to every other node of the simulation, one unicast copy each.
    pub fn broadcast(&mut self, msg: M) {
        self.outbox.push((Dest::AllOthers, Arc::new(msg)));
    }

    /// Schedules [`Process::on_timer`] with `timer` after `delay` of simulated time,
    /// counted from the end of this handler.
    pub fn set_timer(&mut self, delay: Duration, timer: TimerId) {
        self.timers.push(TimerCmd::Set(delay, timer));
    }

    /// Cancels every pending timer of this node tagged `timer` (including one set earlier
    /// in this same handler).
    pub fn cancel_timer(&mut self, timer: TimerId) {
        self.timers.push(TimerCmd::Cancel(timer));
    }
}
