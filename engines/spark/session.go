package spark

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/apache/spark-connect-go/spark/client/channel"
	"github.com/apache/spark-connect-go/spark/sparkerrors"
	sparksql "github.com/apache/spark-connect-go/spark/sql"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/encoding/protowire"
)

// Session is what a run needs from Spark: statements, small results, and a way to stop what the
// session runs. It is the seam between the engine and the Spark Connect client, so that the
// client can be replaced.
type Session interface {
	// Exec runs a statement (DDL, SET, INSERT OVERWRITE DIRECTORY, CACHE TABLE…).
	Exec(ctx context.Context, query string) error
	// Rows runs a query and returns its rows, each value as the client decodes it (int64, string,
	// bool, nil…). Only small results: counts, types, samples.
	Rows(ctx context.Context, query string) ([][]any, error)
	// Interrupt stops every operation the session is running on the server.
	Interrupt(ctx context.Context) error
	// Close ends the session.
	Close() error
}

// Connect opens a Spark Connect session on remote (sc://host:port[/;user_id=…;token=…]). It does no
// I/O until the first statement.
func Connect(ctx context.Context, remote string) (Session, error) {
	base, err := channel.NewBuilder(remote)
	if err != nil {
		return nil, fmt.Errorf("spark remote %q: %w (expected sc://HOST:PORT)", remote, err)
	}
	cb := &capturingBuilder{BaseBuilder: base}
	s, err := sparksql.NewSessionBuilder().WithChannelBuilder(cb).Build(ctx)
	if err != nil {
		return nil, fmt.Errorf("connect to Spark at %s: %w", remote, err)
	}
	id := sessionID(s)
	if id == "" {
		return nil, fmt.Errorf("connect to Spark at %s: the client's session has no id to interrupt it by", remote)
	}
	return &connectSession{s: s, conn: cb.conn, id: id, user: cb.User(), headers: cb.Headers()}, nil
}

// capturingBuilder keeps the gRPC connection the client dials, for the Interrupt RPC the client
// does not offer.
type capturingBuilder struct {
	*channel.BaseBuilder
	conn *grpc.ClientConn
}

func (b *capturingBuilder) Build(ctx context.Context) (*grpc.ClientConn, error) {
	conn, err := b.BaseBuilder.Build(ctx)
	b.conn = conn
	return conn, err
}

// sessionID reads the session id the client generated and keeps unexported (pinned client
// version; "" if its layout changes, which Connect refuses).
func sessionID(s sparksql.SparkSession) string {
	v := reflect.ValueOf(s)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return ""
	}
	f := v.Elem().FieldByName("sessionId")
	if !f.IsValid() || f.Kind() != reflect.String {
		return ""
	}
	return f.String()
}

type connectSession struct {
	s       sparksql.SparkSession
	conn    *grpc.ClientConn
	id      string
	user    string
	headers map[string]string
}

func (c *connectSession) Exec(ctx context.Context, query string) error {
	_, err := c.s.Sql(ctx, query)
	return clientError(err)
}

func (c *connectSession) Rows(ctx context.Context, query string) ([][]any, error) {
	df, err := c.s.Sql(ctx, query)
	if err != nil {
		return nil, clientError(err)
	}
	rows, err := df.Collect(ctx)
	if err != nil {
		return nil, clientError(err)
	}
	out := make([][]any, len(rows))
	for i, r := range rows {
		out[i] = r.Values()
	}
	return out, nil
}

// Interrupt calls Spark Connect's Interrupt RPC (INTERRUPT_TYPE_ALL) for the session. The
// request is encoded by hand: the client's generated messages are internal to its module.
func (c *connectSession) Interrupt(ctx context.Context) error {
	if c.conn == nil {
		return nil // never connected, so nothing runs
	}
	var user []byte
	user = protowire.AppendTag(user, 1, protowire.BytesType) // UserContext.user_id
	user = protowire.AppendString(user, c.user)
	var req []byte
	req = protowire.AppendTag(req, 1, protowire.BytesType) // session_id
	req = protowire.AppendString(req, c.id)
	req = protowire.AppendTag(req, 2, protowire.BytesType) // user_context
	req = protowire.AppendBytes(req, user)
	req = protowire.AppendTag(req, 3, protowire.BytesType) // client_type
	req = protowire.AppendString(req, "tablegate")
	req = protowire.AppendTag(req, 4, protowire.VarintType) // interrupt_type = INTERRUPT_TYPE_ALL
	req = protowire.AppendVarint(req, 1)
	md := metadata.MD{}
	for k, v := range c.headers {
		md.Append(k, v)
	}
	var resp rawMessage
	err := c.conn.Invoke(metadata.NewOutgoingContext(ctx, md), "/spark.connect.SparkConnectService/Interrupt",
		rawMessage(req), &resp, grpc.ForceCodec(rawCodec{}))
	if err != nil {
		return fmt.Errorf("interrupt the Spark session: %w", err)
	}
	return nil
}

func (c *connectSession) Close() error {
	if c.conn == nil {
		return nil
	}
	return c.conn.Close()
}

type rawMessage []byte

// rawCodec passes already-encoded protobuf bytes through gRPC.
type rawCodec struct{}

func (rawCodec) Marshal(v any) ([]byte, error) {
	m, ok := v.(rawMessage)
	if !ok {
		return nil, fmt.Errorf("raw codec: cannot marshal %T", v)
	}
	return m, nil
}

func (rawCodec) Unmarshal(data []byte, v any) error {
	m, ok := v.(*rawMessage)
	if !ok {
		return fmt.Errorf("raw codec: cannot unmarshal into %T", v)
	}
	*m = append((*m)[:0], data...)
	return nil
}

func (rawCodec) Name() string { return "proto" }

// Error is a failure Spark reported, with its error class (DIVIDE_BY_ZERO, UNRESOLVED_COLUMN…).
type Error struct {
	Class   string
	Message string
	Err     error
}

func (e *Error) Error() string {
	msg := e.Message
	// Spark appends the statement and the analyzed plan: long, and about tablegate's SQL.
	for _, cut := range []string{"\nJVM stacktrace:", "\n== SQL", "; line "} {
		if i := strings.Index(msg, cut); i > 0 {
			msg = msg[:i]
		}
	}
	return strings.TrimSpace(msg)
}

func (e *Error) Unwrap() error { return e.Err }

func clientError(err error) error {
	if err == nil {
		return nil
	}
	var se *sparkerrors.SparkError
	if errors.As(err, &se) {
		return &Error{Class: se.ErrorClass, Message: se.Message, Err: err}
	}
	return err
}
