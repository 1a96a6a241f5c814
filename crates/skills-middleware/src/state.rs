//! Agent state: the conversation plus one typed part per middleware.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::fmt::{self, Debug};
use std::sync::Arc;

use crate::message::Message;

/// A typed piece of [`AgentState`] owned by one middleware, such as
/// [`SkillsState`](skills_core::SkillsState) for the skills middleware.
///
/// A **private** part (deepagents' `PrivateStateAttr`) belongs to one agent: a subagent
/// started with [`AgentState::for_subagent`] does not see it, and
/// [`AgentState::shared_update`] does not hand it back to the parent.
pub trait StatePart: Any + Clone + Debug + Send + Sync {
    /// Whether the part stays with the agent that owns it.
    const PRIVATE: bool;
}

impl StatePart for skills_core::SkillsState {
    const PRIVATE: bool = true;
}

/// A stored part: the value behind an `Arc` (cheap to copy into requests and subagents),
/// and whether it is private.
#[derive(Clone)]
struct Part {
    value: Arc<dyn PartValue>,
    private: bool,
}

trait PartValue: Any + Send + Sync + Debug {
    fn as_any(&self) -> &dyn Any;
}

impl<T: StatePart> PartValue for T {
    fn as_any(&self) -> &dyn Any {
        self
    }
}

impl Debug for Part {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.value.fmt(f)
    }
}

/// Typed parts keyed by type: the storage shared by [`AgentState`] and [`StateUpdate`].
#[derive(Clone, Default)]
struct Parts(HashMap<TypeId, Part>);

impl Parts {
    fn get<T: StatePart>(&self) -> Option<&T> {
        self.0
            .get(&TypeId::of::<T>())
            .and_then(|part| part.value.as_any().downcast_ref::<T>())
    }

    fn insert<T: StatePart>(&mut self, value: T) {
        let part = Part {
            value: Arc::new(value),
            private: T::PRIVATE,
        };
        self.0.insert(TypeId::of::<T>(), part);
    }

    fn shared(&self) -> Self {
        Self(
            self.0
                .iter()
                .filter(|(_, p)| !p.private)
                .map(|(k, p)| (*k, p.clone()))
                .collect(),
        )
    }
}

impl Debug for Parts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.0.values()).finish()
    }
}

/// The state of one agent thread: the message history and each middleware's part.
///
/// ```
/// use skills_middleware::{AgentState, Message};
/// use skills_core::SkillsState;
///
/// let mut state = AgentState::new(vec![Message::user("hi")]);
/// state.insert(SkillsState { skills_loaded: vec!["web".into()], ..Default::default() });
/// assert_eq!(state.get::<SkillsState>().unwrap().skills_loaded, ["web"]);
///
/// // A subagent starts without the parent's private parts.
/// let child = state.for_subagent(vec![Message::user("sub-task")]);
/// assert!(child.get::<SkillsState>().is_none());
/// ```
#[derive(Debug, Clone, Default)]
pub struct AgentState {
    /// The conversation, oldest first.
    pub messages: Vec<Message>,
    parts: Parts,
}

impl AgentState {
    /// A state holding `messages` and no parts.
    pub fn new(messages: Vec<Message>) -> Self {
        Self {
            messages,
            parts: Parts::default(),
        }
    }

    /// The part of type `T`, if set.
    pub fn get<T: StatePart>(&self) -> Option<&T> {
        self.parts.get::<T>()
    }

    /// Sets the part of type `T`, replacing the previous value.
    pub fn insert<T: StatePart>(&mut self, value: T) {
        self.parts.insert(value);
    }

    /// Removes the part of type `T` (for a middleware that rebuilds its part when it is
    /// missing, this asks for a rebuild).
    pub fn remove<T: StatePart>(&mut self) -> bool {
        self.parts.0.remove(&TypeId::of::<T>()).is_some()
    }

    /// Applies an update: each part it carries replaces the part of the same type.
    pub fn apply(&mut self, update: StateUpdate) {
        self.parts.0.extend(update.parts.0);
    }

    /// The state a subagent starts with: `messages` and this state's non-private parts.
    pub fn for_subagent(&self, messages: Vec<Message>) -> Self {
        Self {
            messages,
            parts: self.parts.shared(),
        }
    }

    /// This state's non-private parts as an update, for a subagent to hand back to its
    /// parent: private parts (the skills a subagent loaded) never leak upwards.
    pub fn shared_update(&self) -> StateUpdate {
        StateUpdate {
            parts: self.parts.shared(),
        }
    }
}

/// Parts to set on an [`AgentState`], returned by `before_agent` hooks and carried by a
/// [`Command`](crate::Command). Each part replaces the part of the same type.
#[derive(Debug, Clone, Default)]
pub struct StateUpdate {
    parts: Parts,
}

impl StateUpdate {
    /// An empty update.
    pub fn new() -> Self {
        Self::default()
    }

    /// An update that sets one part.
    pub fn with<T: StatePart>(mut self, value: T) -> Self {
        self.parts.insert(value);
        self
    }

    /// The part of type `T` this update sets, if any.
    pub fn get<T: StatePart>(&self) -> Option<&T> {
        self.parts.get::<T>()
    }

    /// Whether the update sets nothing.
    pub fn is_empty(&self) -> bool {
        self.parts.0.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Clone, PartialEq)]
    struct Shared(u32);
    impl StatePart for Shared {
        const PRIVATE: bool = false;
    }

    #[derive(Debug, Clone, PartialEq)]
    struct Private(u32);
    impl StatePart for Private {
        const PRIVATE: bool = true;
    }

    #[test]
    fn subagents_see_shared_parts_only_and_hand_back_shared_parts_only() {
        let mut parent = AgentState::new(vec![Message::user("parent")]);
        parent.insert(Shared(1));
        parent.insert(Private(1));

        let mut child = parent.for_subagent(vec![Message::user("child")]);
        assert_eq!(child.get::<Shared>(), Some(&Shared(1)));
        assert_eq!(child.get::<Private>(), None);
        assert_eq!(child.messages, [Message::user("child")]);

        child.insert(Shared(2));
        child.insert(Private(2));
        parent.apply(child.shared_update());
        assert_eq!(parent.get::<Shared>(), Some(&Shared(2)));
        assert_eq!(parent.get::<Private>(), Some(&Private(1)));
    }

    #[test]
    fn updates_replace_parts_and_remove_clears_them() {
        let mut state = AgentState::default();
        state.apply(StateUpdate::new().with(Shared(1)).with(Private(7)));
        state.apply(StateUpdate::new().with(Shared(2)));
        assert_eq!(state.get::<Shared>(), Some(&Shared(2)));
        assert_eq!(state.get::<Private>(), Some(&Private(7)));
        assert!(state.remove::<Private>());
        assert!(!state.remove::<Private>());
        assert_eq!(state.get::<Private>(), None);
    }
}
