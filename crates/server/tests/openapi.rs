//! The OpenAPI document generated from the handlers: the copy checked in
//! at `docs/openapi.json` is the current one, and every reference in it
//! leads somewhere. (That the router serves exactly the documented
//! routes is checked in tests/api.rs, on a started server.)

use std::path::PathBuf;

use serde_json::Value;

fn checked_in_copy() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/openapi.json")
}

/// `MONTE_BLESS=1` rewrites the checked-in copy instead of comparing.
#[test]
fn the_openapi_document_is_checked_in() {
    let generated = format!("{}\n", monte_server::api::openapi_json());
    let path = checked_in_copy();
    if std::env::var_os("MONTE_BLESS").is_some_and(|v| v == "1") {
        std::fs::write(&path, &generated).expect("write docs/openapi.json");
        return;
    }
    let checked_in = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        checked_in == generated,
        "docs/openapi.json is not the document the handlers make; after changing the API, regenerate it with\n\
         \n    MONTE_BLESS=1 cargo test -p monte-server --test openapi\n\nand commit it"
    );
}

#[test]
fn every_reference_in_the_document_leads_somewhere() {
    let document: Value = serde_json::from_str(monte_server::api::openapi_json()).expect("JSON");
    assert!(document["openapi"].as_str().is_some_and(|v| v.starts_with("3.")), "{}", document["openapi"]);
    let mut references = Vec::new();
    collect_references(&document, &mut references);
    assert!(!references.is_empty());
    for reference in references {
        let pointer = reference.strip_prefix('#').unwrap_or_else(|| panic!("{reference}: not in this document"));
        assert!(document.pointer(pointer).is_some(), "{reference} leads nowhere");
    }
}

fn collect_references<'a>(value: &'a Value, into: &mut Vec<&'a str>) {
    match value {
        Value::Object(map) => {
            if let Some(Value::String(reference)) = map.get("$ref") {
                into.push(reference);
            }
            map.values().for_each(|v| collect_references(v, into));
        }
        Value::Array(items) => items.iter().for_each(|v| collect_references(v, into)),
        _ => {}
    }
}
