//! Runs a model compiled by `atenaot compile` and checks it against eager's
//! stored outputs. Environment:
//!   ATENAOT_MODEL_DIR   the compiled directory (holds libNAME.so)
//!   ATENAOT_MODEL_NAME  NAME
//!   ATENAOT_INPUT       input .npy (float32, C order)
//!   ATENAOT_EXPECTED    eager's output .npy
//! Without them the tests print why and pass, unless ATENAOT_REQUIRE_MODEL is
//! set (the Bazel test sets it), then they fail.
use atenaot::{Arena, DType, Model, Status, TensorMut, TensorRef};
use std::path::PathBuf;

struct Case {
    lib: PathBuf,
    input: PathBuf,
    expected: PathBuf,
}

fn case() -> Option<Case> {
    let var = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    match (var("ATENAOT_MODEL_DIR"), var("ATENAOT_MODEL_NAME"), var("ATENAOT_INPUT"), var("ATENAOT_EXPECTED")) {
        (Some(dir), Some(name), Some(input), Some(expected)) => Some(Case {
            lib: PathBuf::from(dir).join(format!("lib{name}.so")),
            input: input.into(),
            expected: expected.into(),
        }),
        _ => {
            assert!(
                std::env::var_os("ATENAOT_REQUIRE_MODEL").is_none(),
                "ATENAOT_MODEL_DIR, ATENAOT_MODEL_NAME, ATENAOT_INPUT and ATENAOT_EXPECTED must be set"
            );
            eprintln!("skipped: set ATENAOT_MODEL_DIR, ATENAOT_MODEL_NAME, ATENAOT_INPUT, ATENAOT_EXPECTED");
            None
        }
    }
}

/// A tiny .npy reader: format 1.0/2.0/3.0, little-endian float32, C order.
fn read_npy_f32(path: &PathBuf) -> (Vec<f32>, Vec<i64>) {
    let raw = std::fs::read(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    assert_eq!(&raw[..6], b"\x93NUMPY", "{} is not a .npy file", path.display());
    let (hlen, start) = match raw[6] {
        1 => (u16::from_le_bytes([raw[8], raw[9]]) as usize, 10),
        2 | 3 => (u32::from_le_bytes([raw[8], raw[9], raw[10], raw[11]]) as usize, 12),
        v => panic!("unsupported .npy version {v}"),
    };
    let header = std::str::from_utf8(&raw[start..start + hlen]).expect("header is text");
    let field = |key: &str| -> &str {
        let at = header.find(key).unwrap_or_else(|| panic!("no {key} in {header}")) + key.len();
        header[at..].trim_start_matches([' ', ':'])
    };
    assert!(field("'descr'").starts_with("'<f4'"), "only float32 .npy files here: {header}");
    assert!(field("'fortran_order'").starts_with("False"), "only C order: {header}");
    let shape_text = field("'shape'");
    let shape: Vec<i64> = shape_text[1..shape_text.find(')').unwrap()]
        .split(',')
        .filter(|s| !s.trim().is_empty())
        .map(|s| s.trim().parse().unwrap())
        .collect();
    let n: i64 = shape.iter().product();
    let body = &raw[start + hlen..];
    assert_eq!(body.len(), n as usize * 4, "{}: data size", path.display());
    let data = body.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
    (data, shape)
}

fn max_violation(actual: &[f32], expected: &[f32]) -> (bool, f32) {
    assert_eq!(actual.len(), expected.len());
    let mut ok = true;
    let mut worst = 0f32;
    for (a, e) in actual.iter().zip(expected) {
        let d = (a - e).abs();
        worst = worst.max(d);
        ok &= d <= 1e-6 + 1e-5 * e.abs();
    }
    (ok, worst)
}

#[test]
fn runs_the_example_and_matches_eager() {
    let c = match case() {
        Some(c) => c,
        None => return,
    };
    let (mut x, x_shape) = read_npy_f32(&c.input);
    let (expected, y_shape) = read_npy_f32(&c.expected);
    let mut model = Model::open(&c.lib).unwrap_or_else(|e| panic!("{e}"));
    println!("{model:?}");
    assert_eq!(model.inputs().len(), 1);
    assert_eq!(model.inputs()[0].dtype, DType::Float32);
    assert_eq!(model.inputs()[0].shape, x_shape);
    assert_eq!(model.outputs().len(), 1);
    assert_eq!(model.outputs()[0].shape, y_shape);
    assert_eq!(model.outputs()[0].numel(), expected.len());
    assert!(model.arena_bytes() > 0 && model.arena_bytes() % 64 == 0);

    let mut y = vec![f32::NAN; expected.len()];
    model
        .run(&[TensorRef::new(&mut x, &x_shape).unwrap()], &mut [TensorMut::new(&mut y, &y_shape).unwrap()])
        .unwrap_or_else(|e| panic!("{e}"));
    let (ok, worst) = max_violation(&y, &expected);
    println!("rust: output {y_shape:?} matches eager: {ok}, max abs diff {worst:e}");
    assert!(ok, "max abs diff {worst}");

    // A caller arena, from another thread, with a shared borrow of the input
    // (this model does not update its input): the same bits.
    let x2 = x.clone();
    let model = std::sync::Arc::new(model);
    let m = model.clone();
    let y2 = std::thread::spawn(move || {
        let mut arena = Arena::new(m.arena_bytes());
        let mut y2 = vec![0f32; expected.len()];
        // SAFETY: the MLP example does not write its input.
        let input = unsafe { TensorRef::from_slice(&x2, &x_shape) }.unwrap();
        m.run_with_arena(&[input], &mut [TensorMut::new(&mut y2, &y_shape).unwrap()], &mut arena).unwrap();
        y2
    })
    .join()
    .unwrap();
    assert_eq!(y.iter().map(|v| v.to_bits()).collect::<Vec<_>>(), y2.iter().map(|v| v.to_bits()).collect::<Vec<_>>());

    // Threads: a bad count is refused; 3 threads give the same bits.
    let mut model = std::sync::Arc::try_unwrap(model).unwrap_or_else(|_| panic!("the model is still shared"));
    let e = model.set_threads(65).unwrap_err();
    assert_eq!(e.status, Status::BadOption, "{e}");
    model.set_threads(3).unwrap_or_else(|e| panic!("{e}"));
    let mut y3 = vec![0f32; y.len()];
    let (xs, ys) = (model.inputs()[0].shape.clone(), model.outputs()[0].shape.clone()); // the others moved
    model
        .run(&[TensorRef::new(&mut x, &xs).unwrap()], &mut [TensorMut::new(&mut y3, &ys).unwrap()])
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(y.iter().map(|v| v.to_bits()).collect::<Vec<_>>(), y3.iter().map(|v| v.to_bits()).collect::<Vec<_>>());
}

#[test]
fn misuse_is_an_error_with_a_message() {
    let c = match case() {
        Some(c) => c,
        None => return,
    };
    let (mut x, x_shape) = read_npy_f32(&c.input);
    let mut model = Model::open(&c.lib).unwrap();
    let y_shape = model.outputs()[0].shape.clone();
    let mut y = vec![-7.0f32; model.outputs()[0].numel()];

    // Same number of elements, wrong shape: the ABI refuses and says why.
    let wrong: Vec<i64> = vec![x_shape[0] * 2, x_shape[1] / 2];
    let e = model
        .run(&[TensorRef::new(&mut x, &wrong).unwrap()], &mut [TensorMut::new(&mut y, &y_shape).unwrap()])
        .unwrap_err();
    println!("wrong shape -> {e}");
    assert_eq!(e.status, Status::BadShape);
    assert_eq!(e.status_name(), "AOT_ERR_BAD_SHAPE");
    assert!(e.message.contains("in dimension 0; the model expects"), "{e}");
    assert!(e.to_string().starts_with("AOT_ERR_BAD_SHAPE: "), "{e}");
    assert!(y.iter().all(|&v| v == -7.0), "a failed run wrote its output");

    // Wrong rank.
    let flat = [x.len() as i64];
    let e = model
        .run(&[TensorRef::new(&mut x, &flat).unwrap()], &mut [TensorMut::new(&mut y, &y_shape).unwrap()])
        .unwrap_err();
    assert_eq!(e.status, Status::BadShape);
    assert!(e.message.contains("dimensions; the model expects"), "{e}");

    // Wrong dtype.
    let mut xd: Vec<f64> = x.iter().map(|&v| v as f64).collect();
    let e = model
        .run(&[TensorRef::new(&mut xd, &x_shape).unwrap()], &mut [TensorMut::new(&mut y, &y_shape).unwrap()])
        .unwrap_err();
    println!("wrong dtype -> {e}");
    assert_eq!(e.status, Status::BadDtype);
    assert!(e.message.contains("has dtype float64; the model expects float32"), "{e}");

    // Wrong counts.
    let e = model.run(&[], &mut [TensorMut::new(&mut y, &y_shape).unwrap()]).unwrap_err();
    assert_eq!(e.status, Status::BadCount);
    assert!(e.message.contains("got 0 inputs; the model takes 1"), "{e}");
    let e = model.run(&[TensorRef::new(&mut x, &x_shape).unwrap()], &mut []).unwrap_err();
    assert_eq!(e.status, Status::BadCount);
    assert!(e.message.contains("got 0 outputs; the model returns 1"), "{e}");

    // An arena one byte short.
    let mut small = Arena::new(model.arena_bytes() - 1);
    let e = model
        .run_with_arena(
            &[TensorRef::new(&mut x, &x_shape).unwrap()],
            &mut [TensorMut::new(&mut y, &y_shape).unwrap()],
            &mut small,
        )
        .unwrap_err();
    println!("small arena -> {e}");
    assert_eq!(e.status, Status::ArenaTooSmall);
    assert!(!e.message.is_empty());

    // Data that does not fill the shape never reaches the ABI.
    let e = TensorRef::new(&mut x[1..], &x_shape).err().unwrap();
    assert_eq!(e.status, Status::BadShape);
    assert!(e.message.contains("needs"), "{e}");

    // A library that does not exist.
    let e = Model::open(c.lib.with_file_name("libno_such_model.so")).unwrap_err();
    println!("missing library -> {e}");
    assert_eq!(e.status, Status::OpenFailed);
    assert!(e.message.contains("libno_such_model.so"), "{e}");

    // The model still works after all that.
    model
        .run(&[TensorRef::new(&mut x, &x_shape).unwrap()], &mut [TensorMut::new(&mut y, &y_shape).unwrap()])
        .unwrap();
    let (expected, _) = read_npy_f32(&c.expected);
    assert!(max_violation(&y, &expected).0);
}
