//! Loading a plugin as a client does: the base specification decides whether
//! the plugin loads at all; the permissions object (top level and/or the
//! `org.agent-plugins.permissions` extension, per the profile) yields the
//! declared floors.

pub mod base;
pub mod permissions;

use crate::mutant::Mutant;
pub use crate::profile::Placement;
use crate::profile::Profile;
use permissions::{Declaration, Permissions};
use rbv_protocol::{Diagnostic, OperationId, PluginBundle, PluginReport, Severity};
use std::collections::BTreeMap;
use std::fmt;

/// The extension namespace rbv reads.
pub const EXTENSION_NAMESPACE: &str = "org.agent-plugins.permissions";

/// A JSON Pointer (RFC 6901) under construction, kept as its text: every
/// entry of every manifest gets one, so a push is one small string.
#[derive(Clone, Debug, Default)]
pub struct Pointer(String);

impl Pointer {
    pub fn root() -> Self {
        Pointer(String::new())
    }
    pub fn push(&self, segment: &str) -> Pointer {
        let mut next = String::with_capacity(self.0.len() + segment.len() + 1);
        next.push_str(&self.0);
        next.push('/');
        if segment.contains(['~', '/']) {
            next.push_str(&segment.replace('~', "~0").replace('/', "~1"));
        } else {
            next.push_str(segment);
        }
        Pointer(next)
    }
}

impl fmt::Display for Pointer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

pub(crate) fn error(code: &str, message: impl Into<String>, pointer: &str) -> Diagnostic {
    diagnostic(Severity::Error, code, message, pointer)
}

pub(crate) fn warning(code: &str, message: impl Into<String>, pointer: &str) -> Diagnostic {
    diagnostic(Severity::Warning, code, message, pointer)
}

fn diagnostic(
    severity: Severity,
    code: &str,
    message: impl Into<String>,
    pointer: &str,
) -> Diagnostic {
    Diagnostic {
        severity,
        code: code.to_owned(),
        message: message.into(),
        pointer: Some(pointer.to_owned()),
    }
}

/// One plugin as the reference understood it.
#[derive(Clone, Debug, PartialEq)]
pub struct LoadedPlugin {
    pub report: PluginReport,
    pub version: Option<String>,
    /// Empty when the plugin did not load.
    pub declarations: BTreeMap<String, Declaration>,
}

impl LoadedPlugin {
    pub fn name(&self) -> Option<&str> {
        self.report.name.as_deref()
    }
    pub fn loaded(&self) -> bool {
        self.report.loaded
    }
    pub fn default_floor(&self) -> Option<rbv_protocol::Band> {
        self.report.default_floor
    }
}

/// Validates a bundle and reads its declarations where the profile's
/// `permissions_placement` says. A placement the profile does not read is
/// reported as a warning and given no meaning at all: not validated, not
/// merged, not checked against the plugin's surface.
pub fn load(bundle: &PluginBundle, profile: &Profile, mutant: Option<Mutant>) -> LoadedPlugin {
    let placement = profile.permissions_placement();
    let mut diags = Vec::new();
    let base = base::validate_plugin(&bundle.manifest, &mut diags);
    let servers = bundle
        .mcp
        .as_ref()
        .and_then(|mcp| base::validate_mcp(mcp, base.spec, &mut diags));

    let mut perms = Permissions::default();
    if base.loaded {
        let manifest = bundle.manifest.as_object();
        if let Some(top) = manifest.and_then(|m| m.get("permissions")) {
            if placement.reads_top_level() {
                diags.push(warning(
                    "permissions-top-level",
                    "top-level `permissions` is read per the profile (`permissions_placement`); a 1.x client ignores it",
                    "/permissions",
                ));
                perms = perms.merge(permissions::read(
                    top,
                    &Pointer::root().push("permissions"),
                    profile,
                    &mut diags,
                ));
            } else {
                diags.push(warning(
                    "permissions-placement-not-read",
                    format!(
                        "top-level `permissions` is not read under permissions_placement {placement}; ignored"
                    ),
                    "/permissions",
                ));
            }
        }
        if let Some(ext) = base
            .extensions
            .as_ref()
            .and_then(|e| e.get(EXTENSION_NAMESPACE))
        {
            let at = Pointer::root().push("extensions").push(EXTENSION_NAMESPACE);
            if placement.reads_extension() {
                perms = perms.merge(permissions::read(ext, &at, profile, &mut diags));
            } else {
                diags.push(warning(
                    "permissions-placement-not-read",
                    format!(
                        "the `{EXTENSION_NAMESPACE}` extension is not read under permissions_placement {placement}; ignored"
                    ),
                    &at.to_string(),
                ));
            }
        }
        check_surface(&perms, bundle, servers.as_ref(), &mut diags);
    }

    let mut loaded = base.loaded;
    if mutant == Some(Mutant::WholePluginInvalid) && perms.invalid_entries > 0 {
        loaded = false;
    }
    if !loaded {
        perms = Permissions::default();
    }
    let report = PluginReport {
        name: base.name,
        loaded,
        diagnostics: diags,
        declarations: perms
            .declarations
            .iter()
            .map(|(id, d)| (id.clone(), d.floor))
            .collect(),
        default_floor: perms.default_floor,
    };
    LoadedPlugin {
        report,
        version: base.version,
        declarations: perms.declarations,
    }
}

/// Declarations for servers, tools or skills the bundle does not have are
/// tolerated (§6.2: tools are discovered at connection time) but reported.
fn check_surface(
    perms: &Permissions,
    bundle: &PluginBundle,
    servers: Option<&std::collections::BTreeSet<String>>,
    diags: &mut Vec<Diagnostic>,
) {
    for id in perms.declarations.keys() {
        let unknown = match OperationId::parse(id) {
            Ok(OperationId::Mcp { server, tool }) => {
                servers.is_some_and(|s| !s.contains(&server))
                    || bundle
                        .tools
                        .get(&server)
                        .is_some_and(|tools| !tools.contains(&tool))
            }
            Ok(OperationId::Skill { name }) => {
                !bundle.skills.is_empty() && !bundle.skills.contains(&name)
            }
            _ => false,
        };
        if unknown {
            diags.push(warning(
                "undiscovered-operation",
                format!("`{id}` is declared but the plugin does not expose it; the floor is kept"),
                "",
            ));
        }
    }
}

#[cfg(test)]
mod tests;
