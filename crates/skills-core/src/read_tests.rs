//! Tests of finding a walk's skill files.

use super::skill_file_parent;
use crate::path;
use crate::skill::{LOWERCASE_SKILL_FILE, SKILL_FILE};

/// A path's skill file and folder are found by its suffix exactly as by its last
/// component and its parent, for every shape of path a walk or a caller can give.
#[test]
fn a_skill_file_s_folder_is_its_parent() {
    let paths = [
        "/s/a/SKILL.md",
        "/s/a/skill.md",
        "/SKILL.md",
        "/skill.md",
        "SKILL.md",
        "skill.md",
        "/s/aSKILL.md",
        "/s/a/SKILL.mdx",
        "/s/a/Skill.md",
        "/s/a/",
        "/",
        "",
        "//SKILL.md",
        "/s/a.SKILL.md/SKILL.md",
        "/s/a/b/c/skill.md",
    ];
    for p in paths {
        let name = path::file_name(p);
        let expected = (name == SKILL_FILE || name == LOWERCASE_SKILL_FILE)
            .then(|| (path::parent(p), name == LOWERCASE_SKILL_FILE));
        assert_eq!(skill_file_parent(p), expected, "{p:?}");
    }
}
